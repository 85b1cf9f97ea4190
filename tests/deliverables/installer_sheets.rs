//! Installer sheets (#46 item 3): `sheets/<rack>.html`, or `sheets/<switch>.html` without racks.
//! The expected sheets and their cables come from `cabling.csv` and `plan.json` parsed here: one
//! sheet per rack (or switch) with a cable end, each listing exactly the cables with an end
//! there. One sheet is opened in headless Chromium and printed to PDF: it has pages, and its text
//! (a cable id from `cabling.csv`) is in the DOM, not a blank page.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::browser::{Browser, chromium};
use crate::common;
use crate::report::{artifacts_dir, build, decode_base64};

/// The expected cable ids of every sheet, from `cabling.csv`: by the racks of both ends, or
/// without racks by the switches at its ends (the B device when neither end is a switch).
fn expected(files: &[railyard::output::OutputFile]) -> BTreeMap<String, BTreeSet<String>> {
    let plan: Value = serde_json::from_str(&common::file(files, "plan.json")).expect("plan");
    let switches: BTreeSet<&str> = plan["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .filter(|d| !matches!(d["role"].as_str(), Some("node" | "appliance")))
        .filter_map(|d| d["name"].as_str())
        .collect();
    let text = common::file(files, "cabling.csv");
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("row")).collect();
    let h = r.headers().expect("header").clone();
    let col = |n: &str| h.iter().position(|x| x == n).expect("column");
    let (id, ar, br, ad, bd) = (
        col("cable_id"),
        col("a_rack"),
        col("b_rack"),
        col("a_device"),
        col("b_device"),
    );
    let racks = rows.iter().any(|c| !c[ar].is_empty());
    let mut want: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for c in &rows {
        let mut locs: BTreeSet<&str> = if racks {
            [&c[ar], &c[br]]
                .into_iter()
                .filter(|l| !l.is_empty())
                .collect()
        } else {
            [&c[ad], &c[bd]]
                .into_iter()
                .filter(|d| switches.contains(d))
                .collect()
        };
        if locs.is_empty() && !racks {
            locs.insert(&c[bd]);
        }
        for l in locs {
            want.entry(l.to_string())
                .or_default()
                .insert(c[id].to_string());
        }
    }
    want
}

/// The cable ids a sheet lists, read from its cells (`<td class="id">`).
fn listed(html: &str) -> BTreeSet<String> {
    html.split("<td class=\"id\">")
        .skip(1)
        .filter_map(|s| s.split_once("</td>").map(|(v, _)| v))
        .map(|v| {
            v.replace("&amp;", "&")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
        })
        .collect()
}

fn check_sheets(inventory: &'static str) {
    let name = inventory.trim_end_matches(".yaml");
    let (dir, files) = build(&format!("{name}-sheets"), inventory);
    let want = expected(files);
    let sheets: BTreeMap<String, String> = files
        .iter()
        .filter_map(|f| {
            let loc = f.path.strip_prefix("sheets/")?.strip_suffix(".html")?;
            Some((loc.to_string(), String::from_utf8(f.bytes.clone()).ok()?))
        })
        .collect();
    assert_eq!(
        sheets.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{inventory}: one installer sheet per rack (or switch) with a cable end"
    );
    for (loc, html) in &sheets {
        assert_eq!(&listed(html), &want[loc], "{inventory}: cables of {loc}");
        assert!(
            !html.contains("<script"),
            "{inventory}: {loc} has no script"
        );
        assert!(
            html.contains("thead { display: table-header-group; }"),
            "{inventory}: {loc} repeats the table header on each page"
        );
    }
    let Some(bin) = chromium(&format!("installer_sheets_in_chromium[{inventory}]")) else {
        return;
    };
    // The sheet with the most cables: several printed pages.
    let (loc, _) = want
        .iter()
        .max_by_key(|(l, ids)| (ids.len(), std::cmp::Reverse(l.as_str())))
        .expect("a sheet");
    let mut browser = Browser::launch(&bin);
    browser.load(&dir.join(format!("sheets/{loc}.html")));
    let text = browser.eval("document.body.innerText");
    let text = text.as_str().expect("text");
    let first = want[loc].iter().next().expect("a cable");
    assert!(
        text.contains(first.as_str()),
        "{inventory}: {first} on the sheet of {loc}"
    );
    assert!(
        text.contains(loc.as_str()),
        "{inventory}: the title names {loc}"
    );
    let ids: Value = browser.eval(
        "JSON.stringify(Array.from(document.querySelectorAll('td.id')).map(t => t.textContent))",
    );
    let ids: BTreeSet<String> = serde_json::from_str(ids.as_str().expect("ids")).expect("json");
    assert_eq!(&ids, &want[loc], "{inventory}: cables of {loc} in the DOM");
    let pdf = browser.call(
        "Page.printToPDF",
        json!({"preferCSSPageSize": true, "printBackground": true}),
    );
    let pdf = decode_base64(pdf["data"].as_str().expect("pdf"));
    assert!(pdf.starts_with(b"%PDF"), "{inventory}: a PDF");
    let pages = crate::report::pdf_pages(&pdf);
    assert!(pages >= 1, "{inventory}: the sheet of {loc} prints pages");
    if want[loc].len() > 40 {
        assert!(
            pages > 1,
            "{inventory}: {} cables on {pages} page(s)",
            want[loc].len()
        );
    }
    std::fs::write(
        artifacts_dir().join(format!("{name}-installer-{loc}.pdf")),
        &pdf,
    )
    .expect("write pdf");
    assert!(
        browser.errors().is_empty(),
        "{inventory}: {:?}",
        browser.errors()
    );
}

#[test]
fn superpod_installer_sheets_per_switch_print_in_chromium() {
    check_sheets("dgx-superpod-h100.yaml");
}

#[test]
fn spectrum_x_installer_sheets_per_rack_print_in_chromium() {
    check_sheets("spectrum-x-cloud.yaml");
}
