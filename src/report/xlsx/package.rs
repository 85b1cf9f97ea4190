//! The package parts around the worksheets (ECMA-376 Part 2, Open Packaging Conventions, and
//! Part 1 §18.2 workbook, §18.8 styles): content types, relationships, the workbook with its
//! sheets and defined names (each table's filter range and print titles), the style sheet and
//! the document properties. No theme part: the fonts name their colours.

use super::Style;
use super::sheet::{NS, NS_R, argb};
use super::xml::Xml;

const NS_PKG_REL: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
const REL_DOC: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const CT_SHEET: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml";

/// What the workbook part needs of a sheet.
pub(super) struct SheetEntry {
    pub name: String,
    /// The table's range (`A1:O1882`) for its autofilter and print titles; none for Summary.
    pub table: Option<String>,
}

pub(super) fn content_types(sheets: usize) -> Vec<u8> {
    let mut x = Xml::document();
    x.open(
        "Types",
        &[(
            "xmlns",
            "http://schemas.openxmlformats.org/package/2006/content-types",
        )],
    );
    x.empty(
        "Default",
        &[
            ("Extension", "rels"),
            (
                "ContentType",
                "application/vnd.openxmlformats-package.relationships+xml",
            ),
        ],
    );
    x.empty(
        "Default",
        &[("Extension", "xml"), ("ContentType", "application/xml")],
    );
    let overrides = [
        (
            "/docProps/app.xml",
            "application/vnd.openxmlformats-officedocument.extended-properties+xml",
        ),
        (
            "/docProps/core.xml",
            "application/vnd.openxmlformats-package.core-properties+xml",
        ),
        (
            "/xl/styles.xml",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml",
        ),
        (
            "/xl/workbook.xml",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
        ),
    ];
    for (part, ct) in overrides {
        x.empty("Override", &[("PartName", part), ("ContentType", ct)]);
    }
    for i in 1..=sheets {
        let part = ["/xl/", &sheet_part(i)].concat();
        x.empty(
            "Override",
            &[("PartName", &part), ("ContentType", CT_SHEET)],
        );
    }
    x.close("Types");
    x.buf
}

/// `worksheets/sheet<i>.xml`, relative to `xl/`.
pub(super) fn sheet_part(i: usize) -> String {
    ["worksheets/sheet", &i.to_string(), ".xml"].concat()
}

pub(super) fn root_rels() -> Vec<u8> {
    let mut x = Xml::document();
    x.open("Relationships", &[("xmlns", NS_PKG_REL)]);
    let rels = [
        (
            "rId1",
            &*[REL_DOC, "/officeDocument"].concat(),
            "xl/workbook.xml",
        ),
        (
            "rId2",
            "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties",
            "docProps/core.xml",
        ),
        (
            "rId3",
            &*[REL_DOC, "/extended-properties"].concat(),
            "docProps/app.xml",
        ),
    ];
    for (id, ty, target) in rels {
        x.empty(
            "Relationship",
            &[("Id", id), ("Type", ty), ("Target", target)],
        );
    }
    x.close("Relationships");
    x.buf
}

pub(super) fn workbook_rels(sheets: usize) -> Vec<u8> {
    let mut x = Xml::document();
    x.open("Relationships", &[("xmlns", NS_PKG_REL)]);
    let sheet = [REL_DOC, "/worksheet"].concat();
    for i in 1..=sheets {
        x.empty(
            "Relationship",
            &[
                ("Id", &rid(i)),
                ("Type", &sheet),
                ("Target", &sheet_part(i)),
            ],
        );
    }
    x.empty(
        "Relationship",
        &[
            ("Id", &rid(sheets + 1)),
            ("Type", &[REL_DOC, "/styles"].concat()),
            ("Target", "styles.xml"),
        ],
    );
    x.close("Relationships");
    x.buf
}

fn rid(i: usize) -> String {
    ["rId", &i.to_string()].concat()
}

/// A sheet name in a formula: always quoted, quotes doubled.
fn quoted(name: &str) -> String {
    ["'", &name.replace('\'', "''"), "'"].concat()
}

/// `A1:O10` → `$A$1:$O$10`.
fn absolute(range: &str) -> String {
    let mut out = String::with_capacity(range.len() + 4);
    for part in range.split(':') {
        if !out.is_empty() {
            out.push(':');
        }
        let digits = part
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(part.len());
        out.push('$');
        out.push_str(&part[..digits]);
        out.push('$');
        out.push_str(&part[digits..]);
    }
    out
}

pub(super) fn workbook(sheets: &[SheetEntry]) -> Vec<u8> {
    let mut x = Xml::document();
    x.open("workbook", &[("xmlns", NS), ("xmlns:r", NS_R)]);
    x.empty("workbookPr", &[]);
    x.open("bookViews", &[]);
    x.empty("workbookView", &[]);
    x.close("bookViews");
    x.open("sheets", &[]);
    for (i, s) in sheets.iter().enumerate() {
        let id = (i + 1).to_string();
        x.empty(
            "sheet",
            &[("name", &s.name), ("sheetId", &id), ("r:id", &rid(i + 1))],
        );
    }
    x.close("sheets");
    // Excel's hidden filter ranges and the header row repeated on every printed page.
    let mut names: Vec<(&str, usize, String)> = Vec::new();
    for (i, s) in sheets.iter().enumerate() {
        if let Some(range) = &s.table {
            let sheet = quoted(&s.name);
            names.push((
                "_xlnm._FilterDatabase",
                i,
                [&*sheet, "!", &absolute(range)].concat(),
            ));
            names.push(("_xlnm.Print_Titles", i, [&*sheet, "!$1:$1"].concat()));
        }
    }
    if !names.is_empty() {
        x.open("definedNames", &[]);
        for (name, sheet, formula) in &names {
            let id = sheet.to_string();
            let mut attrs = vec![("name", *name), ("localSheetId", &*id)];
            if name.ends_with("_FilterDatabase") {
                attrs.push(("hidden", "1"));
            }
            x.leaf("definedName", &attrs, formula);
        }
        x.close("definedNames");
    }
    x.empty("calcPr", &[("calcId", "124519"), ("fullCalcOnLoad", "1")]);
    x.close("workbook");
    x.buf
}

/// Fonts: the default, the header's (bold, white). Fills: the two Excel reserves, the header's,
/// one per tier. Cell formats in [`Style`] order.
pub(super) fn styles() -> Vec<u8> {
    let mut x = Xml::document();
    x.open("styleSheet", &[("xmlns", NS)]);
    x.open("fonts", &[("count", "2")]);
    for bold in [false, true] {
        x.open("font", &[]);
        if bold {
            x.empty("b", &[]);
        }
        x.empty("sz", &[("val", "11")]);
        let colour = if bold { 0xFFFFFF } else { 0x000000 };
        x.empty("color", &[("rgb", &argb(colour))]);
        x.empty("name", &[("val", "Calibri")]);
        x.empty("family", &[("val", "2")]);
        x.close("font");
    }
    x.close("fonts");
    let solid: Vec<u32> = std::iter::once(Style::HEADER_FILL)
        .chain(Style::TIERS.iter().map(|(_, c)| *c))
        .collect();
    x.open("fills", &[("count", &(solid.len() + 2).to_string())]);
    for pattern in ["none", "gray125"] {
        x.open("fill", &[]);
        x.empty("patternFill", &[("patternType", pattern)]);
        x.close("fill");
    }
    for c in &solid {
        x.open("fill", &[]);
        x.open("patternFill", &[("patternType", "solid")]);
        x.empty("fgColor", &[("rgb", &argb(*c))]);
        x.empty("bgColor", &[("indexed", "64")]);
        x.close("patternFill");
        x.close("fill");
    }
    x.close("fills");
    x.open("borders", &[("count", "2")]);
    for thin in [false, true] {
        x.open("border", &[]);
        for side in ["left", "right", "top"] {
            x.empty(side, &[]);
        }
        if thin {
            x.open("bottom", &[("style", "thin")]);
            x.empty("color", &[("auto", "1")]);
            x.close("bottom");
        } else {
            x.empty("bottom", &[]);
        }
        x.empty("diagonal", &[]);
        x.close("border");
    }
    x.close("borders");
    x.open("cellStyleXfs", &[("count", "1")]);
    x.empty(
        "xf",
        &[
            ("numFmtId", "0"),
            ("fontId", "0"),
            ("fillId", "0"),
            ("borderId", "0"),
        ],
    );
    x.close("cellStyleXfs");
    let xfs = Style::all();
    x.open("cellXfs", &[("count", &xfs.len().to_string())]);
    for s in xfs {
        let (num, font, fill, border) = Style::parts(s);
        let (num, font, fill, border) = (
            num.to_string(),
            font.to_string(),
            fill.to_string(),
            border.to_string(),
        );
        let mut attrs = vec![
            ("numFmtId", &*num),
            ("fontId", &*font),
            ("fillId", &*fill),
            ("borderId", &*border),
            ("xfId", "0"),
        ];
        for (flag, on) in [
            ("applyNumberFormat", num != "0"),
            ("applyFont", font != "0"),
            ("applyFill", fill != "0"),
            ("applyBorder", border != "0"),
        ] {
            if on {
                attrs.push((flag, "1"));
            }
        }
        x.empty("xf", &attrs);
    }
    x.close("cellXfs");
    x.open("cellStyles", &[("count", "1")]);
    x.empty(
        "cellStyle",
        &[("name", "Normal"), ("xfId", "0"), ("builtinId", "0")],
    );
    x.close("cellStyles");
    x.close("styleSheet");
    x.buf
}

/// Title, description and a fixed creation date (the same spec gives the same bytes).
pub(super) fn core(title: &str, description: &str) -> Vec<u8> {
    let mut x = Xml::document();
    x.open(
        "cp:coreProperties",
        &[
            (
                "xmlns:cp",
                "http://schemas.openxmlformats.org/package/2006/metadata/core-properties",
            ),
            ("xmlns:dc", "http://purl.org/dc/elements/1.1/"),
            ("xmlns:dcterms", "http://purl.org/dc/terms/"),
            ("xmlns:dcmitype", "http://purl.org/dc/dcmitype/"),
            ("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"),
        ],
    );
    x.leaf("dc:title", &[], title);
    x.leaf("dc:description", &[], description);
    for t in ["dcterms:created", "dcterms:modified"] {
        x.leaf(t, &[("xsi:type", "dcterms:W3CDTF")], "2000-01-01T00:00:00Z");
    }
    x.close("cp:coreProperties");
    x.buf
}

pub(super) fn app() -> Vec<u8> {
    let mut x = Xml::document();
    x.open(
        "Properties",
        &[
            (
                "xmlns",
                "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties",
            ),
            (
                "xmlns:vt",
                "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes",
            ),
        ],
    );
    x.leaf("Application", &[], "railyard");
    x.close("Properties");
    x.buf
}
