//! What a reader sees first in `report.html`, in real headless Chromium: the headline tiles
//! say what `railyard summary --format json` says (the tiles once read "0 Tb/s" beside a table
//! of 400 Gb/s), no panel title of the fabric diagram lies outside its panel's border, and the
//! cabling table fits the page's width. A screenshot of the top of the page is kept under
//! `target/report-artifacts/<name>-headline.png` for a person to look at.

use std::process::Command;

use serde_json::{Value, json};

use crate::browser::{Browser, chromium};
use crate::common;
use crate::report::{artifacts_dir, build, clip, decode_base64};

/// `railyard summary --format json` of a shipped example: the figures the tiles must show.
fn summary(inventory: &str) -> Value {
    let path = format!("{}/inventories/{inventory}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_railyard"))
        .args(["summary", &path, "--format", "json"])
        .output()
        .expect("binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("summary JSON")
}

/// A tile's text as a number: `1,024` → 1024; `25.6 Tb/s` → 25600 (Gb/s); `400 Gb/s` → 400.
fn tile_number(text: &str) -> f64 {
    let t = text.replace(',', "");
    let (num, unit) = t.split_once(' ').unwrap_or((&t, ""));
    let n: f64 = num
        .parse()
        .unwrap_or_else(|_| panic!("tile `{text}` is no number"));
    match unit {
        "Tb/s" => n * 1000.0,
        "" | "Gb/s" => n,
        other => panic!("tile `{text}`: unit {other}"),
    }
}

fn sum(v: &Value) -> f64 {
    v.as_object()
        .map(|m| m.values().filter_map(Value::as_f64).sum())
        .unwrap_or(0.0)
}

fn check(inventory: &'static str, browser: &mut Browser) {
    let name = inventory.trim_end_matches(".yaml");
    let (dir, files) = build(name, inventory);
    browser.open(&dir.join("report.html"));
    check_tiles(inventory, browser, files);
    check_layout(inventory, browser);
    let area = clip(browser, "section");
    let shot = browser.call(
        "Page.captureScreenshot",
        json!({"format": "png", "captureBeyondViewport": true, "clip": area}),
    );
    let png = decode_base64(shot["data"].as_str().expect("png"));
    assert!(png.starts_with(b"\x89PNG"), "{inventory}: a PNG");
    std::fs::write(artifacts_dir().join(format!("{name}-headline.png")), png).expect("write png");
}

#[test]
fn headline_panels_and_tables_as_chromium_shows_them() {
    let Some(bin) = chromium("headline_panels_and_tables_as_chromium_shows_them") else {
        return;
    };
    let mut browser = Browser::launch(&bin);
    for inventory in [
        "lab-small.yaml",
        "spectrum-x-cloud.yaml",
        "dgx-superpod-h100.yaml",
        "mdx-research-cloud.yaml",
    ] {
        check(inventory, &mut browser);
    }
}

/// The headline tiles against `summary --format json` and the build's own files.
fn check_tiles(inventory: &str, browser: &mut Browser, files: &[railyard::output::OutputFile]) {
    let s = summary(inventory);
    let tiles: Value = serde_json::from_str(
        browser
            .eval(
                r#"JSON.stringify(Object.fromEntries(Array.from(document.querySelectorAll('.figures .figure')).map(f => [f.querySelector('.label').textContent.trim(), f.querySelector('.value').textContent.trim()])))"#,
            )
            .as_str()
            .expect("string"),
    )
    .expect("tiles");
    let tile = |label: &str| {
        tile_number(
            tiles[label]
                .as_str()
                .unwrap_or_else(|| panic!("{inventory}: no `{label}` tile in {tiles}")),
        )
    };
    assert_eq!(tile("GPUs"), s["gpus"].as_f64().unwrap(), "{inventory}");
    assert_eq!(tile("nodes"), s["nodes"].as_f64().unwrap(), "{inventory}");
    assert_eq!(
        tile("scalable units"),
        s["scalable_units"].as_f64().unwrap(),
        "{inventory}"
    );
    assert_eq!(tile("switches"), sum(&s["switches"]), "{inventory}");
    assert_eq!(tile("cables"), sum(&s["links"]), "{inventory}");
    // And against the build's own files: a row of cabling.csv per cable, a device of plan.json
    // per node and switch.
    let cables = common::csv_rows(files, "cabling.csv").len();
    assert_eq!(tile("cables"), cables as f64, "{inventory}: cabling.csv");
    let plan: Value = serde_json::from_str(&common::file(files, "plan.json")).expect("plan");
    let roles: Vec<&str> = plan["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .filter_map(|d| d["role"].as_str())
        .collect();
    let nodes = roles.iter().filter(|r| **r == "node").count();
    let switches = roles
        .iter()
        .filter(|r| !matches!(**r, "node" | "appliance"))
        .count();
    assert_eq!(tile("nodes"), nodes as f64, "{inventory}: plan.json");
    assert_eq!(tile("switches"), switches as f64, "{inventory}: plan.json");
    assert_eq!(
        tile("bisection"),
        s["bisection_gbps"].as_f64().unwrap(),
        "{inventory}"
    );
}

/// Panel titles inside their borders, bundle labels with their speed and uncovered, and the
/// page and the cabling table within the window.
fn check_layout(inventory: &str, browser: &mut Browser) {
    // Every panel title inside its panel's border (SVG user units, as drawn).
    let panels: Value = serde_json::from_str(
        browser
            .eval(
                r#"JSON.stringify(Array.from(document.querySelectorAll('#fabric g.panels > text.panel-title')).map(t => {
                    const b = t.previousElementSibling.getBBox(), r = t.getBBox();
                    return {title: t.textContent, inside: r.x >= b.x && r.y >= b.y && r.x + r.width <= b.x + b.width && r.y + r.height <= b.y + b.height};
                }))"#,
            )
            .as_str()
            .expect("string"),
    )
    .expect("panels");
    let panels = panels.as_array().expect("array");
    assert!(!panels.is_empty(), "{inventory}: no panel drawn");
    for p in panels {
        assert_eq!(
            p["inside"], true,
            "{inventory}: panel title `{}` overflows its border",
            p["title"]
        );
    }

    // Every bundle label names its speed, and no shown label lies under a device's box.
    let labels: Value = serde_json::from_str(
        browser
            .eval(
                r#"JSON.stringify((() => {
                    const boxes = Array.from(document.querySelectorAll('#fabric g.node rect, #fabric g.unit rect')).map(r => r.getBoundingClientRect());
                    return Array.from(document.querySelectorAll('#fabric g.bundle text.count')).map(t => {
                        const r = t.getBoundingClientRect();
                        const shown = getComputedStyle(t).display !== 'none' && r.width > 0;
                        const hit = shown ? boxes.find(b => r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top) : undefined;
                        return {text: t.textContent, speed: t.closest('g.bundle').dataset.speed, under: hit !== undefined,
                                at: [r.left, r.top, r.width, r.height], box: hit ? [hit.left, hit.top, hit.width, hit.height] : null};
                    });
                })())"#,
            )
            .as_str()
            .expect("string"),
    )
    .expect("labels");
    for l in labels.as_array().expect("array") {
        let (text, speed) = (
            l["text"].as_str().unwrap_or(""),
            l["speed"].as_str().unwrap_or("?"),
        );
        assert!(
            text.ends_with(&format!("×{speed}")),
            "{inventory}: bundle label `{text}` without its speed {speed}"
        );
        assert_eq!(
            l["under"], false,
            "{inventory}: bundle label `{text}` lies under a box: {l}"
        );
    }

    // The cabling table within the page's width: the page does not scroll sideways, and the
    // table's box (which scrolls its own rows and columns) ends inside the window.
    let widths = browser.eval(
        r#"(() => { const c = document.querySelector('#cabling-table .scroll') || document.querySelector('#cabling-table'); const d = document.documentElement;
            return {page: d.scrollWidth, window: d.clientWidth, table: c.getBoundingClientRect().right}; })()"#,
    );
    let window = widths["window"].as_f64().unwrap_or(0.0);
    let at_most = |key: &str| widths[key].as_f64().unwrap_or(f64::MAX) <= window + 0.5;
    assert!(
        at_most("page"),
        "{inventory}: the page scrolls sideways: {widths}"
    );
    assert!(
        at_most("table"),
        "{inventory}: the cabling table ends past the window: {widths}"
    );
}
