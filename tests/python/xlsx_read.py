"""Open a workbook with openpyxl and print, as JSON, what a person sees of each sheet: its
name, frozen panes, filter range, print titles, page setup, tab colour, column widths, and
every cell's value, type, boldness, font colour (bold cells), fill and number format.

Usage: xlsx_read.py WORKBOOK > JSON. openpyxl refuses a package it cannot read (the test fails).
"""

import json
import sys

import openpyxl


def colour(c):
    return c.rgb if c is not None and isinstance(c.rgb, str) else None


def sheet(ws):
    setup = ws.page_setup
    props = ws.sheet_properties
    rows = []
    for row in ws.iter_rows():
        cells = []
        for c in row:
            if c.value is None:
                continue
            cells.append(
                {
                    "ref": c.coordinate,
                    "value": c.value,
                    "type": type(c.value).__name__,
                    "bold": bool(c.font.b),
                    "font": colour(c.font.color) if c.font.b else None,
                    "fill": colour(c.fill.fgColor) if c.fill.fill_type == "solid" else None,
                    "format": c.number_format,
                }
            )
        rows.append(cells)
    return {
        "name": ws.title,
        "freeze": ws.freeze_panes,
        "filter": ws.auto_filter.ref,
        "titles": ws.print_title_rows,
        "orientation": setup.orientation,
        "fit_to_page": bool(props.pageSetUpPr.fitToPage) if props.pageSetUpPr else False,
        "fit_height": setup.fitToHeight,
        "tab": colour(props.tabColor),
        "widths": {k: v.width for k, v in ws.column_dimensions.items() if v.customWidth},
        "rows": rows,
    }


wb = openpyxl.load_workbook(sys.argv[1])
json.dump({"title": wb.properties.title, "sheets": [sheet(ws) for ws in wb]}, sys.stdout)
