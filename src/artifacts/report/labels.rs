//! Cable labels: two per cable (A end and B end), printed one label per page on a common
//! self-laminating wrap-around stock, grouped into one file per rack (or per switch when the spec
//! has no racks) by the cable's B end, where the run is usually dressed.
//!
//! Stock: Panduit R200X150V1T, a white self-laminating wrap-around label 2.00 in × 1.50 in whose
//! print-on area is 2.00 in × 0.50 in and whose clear tail laminates it on cables of 0.22–0.28 in
//! (5.6–7.1 mm) outside diameter (Panduit R-series self-laminating label data sheet). Each label
//! carries a QR code of the cable id (ISO/IEC 18004, error correction M), the cable id with the
//! end letter, and the label text exactly as in `cabling.csv` on two lines (`A-end/` then
//! `B-end`), the line of the end the label sits on marked.

use std::collections::BTreeMap;

use qrcodegen::{Mask, QrCode, QrCodeEcc, QrSegment, Version};

use super::markup::Markup;
use crate::artifacts::{ArtifactError, LinkNames};
use crate::output::natural::Natural;
use crate::output::{Memo, OutputFile, OutputGroup, Sink, unit_digest};
use crate::topology::{Device, Fabric};

pub const STOCK: &str = "Panduit R200X150V1T self-laminating wrap-around label, 2.00 in × 1.50 in, print-on area 2.00 in × 0.50 in, for cable OD 0.22–0.28 in (5.6–7.1 mm)";

/// Text room right of the QR code, in points (2.00 in − margins − 0.44 in code).
const TEXT_WIDTH_PT: f64 = 104.0;
/// Advance of one DejaVu Sans Mono character, in em.
const MONO_ADVANCE: f64 = 0.602;

const CSS: &str = "@page { size: 2in 1.5in; margin: 0; }
body { margin: 0; font-family: \"DejaVu Sans Mono\", ui-monospace, monospace; color: #000; }
.label { width: 2in; height: 1.5in; box-sizing: border-box; overflow: hidden; break-after: page; }
.label:last-child { break-after: auto; }
.print { height: 0.5in; box-sizing: border-box; padding: 0.03in; display: flex; align-items: center; }
.qr { width: 0.44in; height: 0.44in; flex: none; }
.txt { margin-left: 0.05in; line-height: 1.12; overflow-wrap: anywhere; }
.txt .id { font-weight: 700; }
.txt .end { border: 0.6pt solid #000; padding: 0 0.15em; margin-left: 0.4em; }
.txt .here { font-weight: 700; }
.txt .here::before { content: \"\\25B6\"; margin-right: 0.2em; }
.tail { height: 1in; }
@media screen {
  body { background: #eef0f3; padding: 16px; font-size: 14px; }
  header.info { font-family: system-ui, \"DejaVu Sans\", sans-serif; margin-bottom: 12px; }
  header.info p { margin: 2px 0; color: #374151; font-size: 13px; }
  .sheet { display: flex; flex-wrap: wrap; gap: 10px; }
  .label { background: #fff; border: 1px solid #9ca3af; border-radius: 3px; }
  .tail { background: repeating-linear-gradient(45deg, #fff 0 6px, #e5e7eb 6px 7px); }
}
@media print { header.info { display: none; } }
";

/// The QR code of `text` as one SVG path of dark modules, with its size in modules. Each run of
/// dark modules in a row is a horizontal stroke one module wide along the row's middle: the
/// first of a row `M{x} {y}.5h{w}`, the next ones relative to the end of the previous
/// (`m{gap} 0h{w}`). Drawn with `stroke-width="1"` it covers exactly the run's modules; the
/// path is less than half as long as closed rectangles per run (the label sheets are the
/// largest output: a million labels at 131k GPUs). `None` when `text` does not fit a QR code.
fn qr_path(text: &str) -> Option<(String, i32)> {
    // One fixed mask instead of trying all eight: scoring every mask was most of the time of a
    // 131k-GPU build (a million labels). Any of the eight masks is a valid symbol that every
    // reader decodes (ISO/IEC 18004 §7.8); the score only steers away from patterns that are
    // harder to scan on large symbols, and a cable id fits version 1-2.
    let segs = QrSegment::make_segments(text);
    let qr = QrCode::encode_segments_advanced(
        &segs,
        QrCodeEcc::Medium,
        Version::MIN,
        Version::MAX,
        Some(Mask::new(0)),
        true,
    )
    .ok()?;
    let n = qr.size();
    let mut d = String::with_capacity(usize::try_from(n * n).unwrap_or(0) * 2);
    for y in 0..n {
        // Where the pen stands after the row's previous run.
        let mut pen: Option<i32> = None;
        let mut x = 0;
        while x < n {
            if !qr.get_module(x, y) {
                x += 1;
                continue;
            }
            let start = x;
            while x < n && qr.get_module(x, y) {
                x += 1;
            }
            match pen {
                None => {
                    d.push('M');
                    push_int(&mut d, start);
                    d.push(' ');
                    push_int(&mut d, y);
                    d.push_str(".5h");
                }
                Some(at) => {
                    d.push('m');
                    push_int(&mut d, start - at);
                    d.push_str(" 0h");
                }
            }
            push_int(&mut d, x - start);
            pen = Some(x);
        }
    }
    Some((d, n))
}

/// A module coordinate (0 ≤ n < 177, the side of a version-40 symbol) in decimal.
fn push_int(out: &mut String, n: i32) {
    let n = n.unsigned_abs();
    if n >= 100 {
        out.push(char::from(b'0' + (n / 100 % 10) as u8));
    }
    if n >= 10 {
        out.push(char::from(b'0' + (n / 10 % 10) as u8));
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

fn font_pt(longest: usize) -> f64 {
    let pt = TEXT_WIDTH_PT / (MONO_ADVANCE * longest.max(1) as f64);
    (pt.clamp(4.0, 7.0) * 10.0).floor() / 10.0
}

/// One end of a cable as printed on its label: `[rack.]device:port` (the same rule as the
/// `label` column of `cabling.csv`, which joins the two ends with `/`).
fn label_end(d: &Device, port: &str) -> String {
    match &d.rack {
        Some(r) => format!("{r}.{}:{port}", d.name),
        None => format!("{}:{port}", d.name),
    }
}

/// A cable in a label file: the B end's device and port in natural order, and the cable.
type Key<'a> = (Natural<&'a str>, Natural<&'a str>, usize);

/// One label file per location, sorted by the B end's device and port; each file goes to `sink`
/// as soon as it is drawn (the label sheets are the largest output: a million labels at 131k
/// GPUs), in no particular order. A sheet that cannot be drawn is the error.
pub fn sheets(
    f: &Fabric,
    names: &LinkNames,
    sink: &Sink<'_>,
    memo: &dyn Memo,
) -> Result<(), ArtifactError> {
    let racks = f.devices().any(|d| d.rack.is_some());
    let mut groups: BTreeMap<String, Vec<Key>> = BTreeMap::new();
    for (i, l) in f.links().enumerate() {
        let b = f.device_of(&l.b);
        let loc = match (&b.rack, racks) {
            (Some(r), true) => r.clone(),
            _ => b.name.clone(),
        };
        groups.entry(loc).or_default().push((
            Natural(b.name.as_str()),
            Natural(names.b_port[i].as_str()),
            i,
        ));
    }
    let links: Vec<_> = f.links().collect();
    let groups: Vec<(String, Vec<Key>)> = groups.into_iter().collect();
    // QR encoding dominates: the locations are split over the cores.
    crate::parallel::chunks(&groups, |part| {
        for (loc, keys) in part {
            let rows: Vec<Row<'_>> = keys
                .iter()
                .map(|(_, _, i)| {
                    let l = links[*i];
                    let ends = [
                        label_end(f.device_of(&l.a), &names.a_port[*i]),
                        label_end(f.device_of(&l.b), &names.b_port[*i]),
                    ];
                    (l.cable_id.as_str(), ends)
                })
                .collect();
            // A sheet is a function of the cluster name, its location and its cables' texts:
            // a rebuild carries over the sheets of locations the change did not touch.
            let unit = format!("labels/{loc}");
            let mut parts: Vec<&[u8]> = vec![f.name.as_bytes(), loc.as_bytes()];
            parts.push(if racks { b"rack" } else { b"switch" });
            for (id, [a, b]) in &rows {
                parts.extend([id.as_bytes(), a.as_bytes(), b.as_bytes()]);
            }
            let inputs = unit_digest(&parts);
            if !memo.reuse(&unit, &inputs) {
                let file = sheet(&f.name, racks, loc, &rows)?;
                memo.record(&unit, &inputs, vec![file.path.clone()]);
                sink(file);
            }
        }
        Ok(())
    })
    .into_iter()
    .collect()
}

/// A cable on a label sheet: its id and the label text of its A and B ends.
type Row<'a> = (&'a str, [String; 2]);

/// One location's label file; an error when a cable id does not fit a QR code (a label
/// without its code is not a label).
fn sheet(
    cluster: &str,
    racks: bool,
    loc: &str,
    keys: &[Row<'_>],
) -> Result<OutputFile, ArtifactError> {
    let path = format!("labels/{loc}.html");
    let mut m = Markup::with_capacity(keys.len() * 1800);
    m.trusted("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    m.trusted("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n");
    m.element(
        "title",
        &[],
        &format!(
            "Cable labels — {} {loc}",
            if racks { "rack" } else { "switch" }
        ),
    );
    m.open("style", &[]).trusted(CSS).close("style");
    m.trusted("\n</head>\n<body>\n");
    m.open("header", &[("class", &"info")]);
    m.element(
        "h1",
        &[],
        &format!(
            "{cluster} — cable labels, {} {loc}",
            if racks { "rack" } else { "switch" }
        ),
    );
    m.element(
        "p",
        &[],
        &format!(
            "{} cables, {} labels (A end and B end of each). Stock: {STOCK}.",
            keys.len(),
            keys.len() * 2
        ),
    );
    m.element(
        "p",
        &[],
        "Print at 100 % scale with no margins on a printer loaded with that stock: one label per page. The QR code holds the cable id; the marked line is the end the label goes on.",
    );
    m.close("header").newline();
    m.open("div", &[("class", &"sheet")]).newline();
    for (k, (cable_id, ends)) in keys.iter().enumerate() {
        let first_line = format!("{}/", ends[0]);
        let longest = [
            cable_id.len() + 4,
            first_line.chars().count(),
            ends[1].chars().count(),
        ]
        .into_iter()
        .max()
        .unwrap_or(1);
        let style = format!("font-size:{}pt", font_pt(longest));
        let (d, n) = qr_path(cable_id).ok_or_else(|| {
            ArtifactError::new(
                &path,
                format!(
                    "cable id `{}` ({} bytes) does not fit a QR code",
                    cable_id.escape_default(),
                    cable_id.len()
                ),
            )
        })?;
        let qid = format!("q{k}");
        for (end, here) in [("A", 0usize), ("B", 1)] {
            m.open(
                "div",
                &[
                    ("class", &"label"),
                    ("data-cable", cable_id),
                    ("data-end", &end),
                ],
            );
            m.open("div", &[("class", &"print")]);
            let view = format!("-2 -2 {} {}", n + 4, n + 4);
            m.open("svg", &[("class", &"qr"), ("viewBox", &view)]);
            if here == 0 {
                m.empty(
                    "path",
                    &[
                        ("id", &qid),
                        ("fill", &"none"),
                        ("stroke", &"#000"),
                        ("stroke-width", &"1"),
                        ("d", &d),
                    ],
                );
            } else {
                m.empty("use", &[("href", &format!("#{qid}"))]);
            }
            m.close("svg");
            m.open("div", &[("class", &"txt"), ("style", &style)]);
            m.open("div", &[("class", &"id")])
                .text(cable_id)
                .element("span", &[("class", &"end")], end)
                .close("div");
            let class = |line: usize| if line == here { "line here" } else { "line" };
            m.element("div", &[("class", &class(0))], &first_line);
            m.element("div", &[("class", &class(1))], &ends[1]);
            m.close("div").close("div");
            m.open("div", &[("class", &"tail")]).close("div");
            m.close("div").newline();
        }
    }
    m.close("div").trusted("\n</body>\n</html>\n");
    Ok(OutputFile::new(OutputGroup::Report, path, m.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qr_code_of_a_cable_id() {
        let (d, n) = qr_path("c1-su12-n32-r8").unwrap();
        // 14 bytes fit version 1 at level M (14 bytes): 21 modules.
        assert_eq!(n, 21);
        assert!(d.starts_with("M0 0.5h7m"), "finder pattern first: {d}");
        // The bottom-left finder pattern's last row: seven dark modules from column 0.
        assert!(d.contains("M0 20.5h7m"), "{d}");
    }

    /// A cable id no QR code holds (version 40 at level M: 2,331 bytes) is the sheet's error,
    /// not a label without its code.
    #[test]
    fn an_id_too_long_for_a_qr_code_is_an_error() {
        let id = "c".repeat(5000);
        let rows = [(id.as_str(), ["a:1/".to_string(), "b:1".to_string()])];
        let e = sheet("c", false, "leaf01", &rows).unwrap_err();
        assert_eq!(e.path, "labels/leaf01.html");
        assert!(e.reason.contains("does not fit a QR code"), "{e}");
        let short = [("c1", ["a:1/".to_string(), "b:1".to_string()])];
        assert!(sheet("c", false, "leaf01", &short).is_ok());
    }

    #[test]
    fn coordinates_in_decimal() {
        for n in [0, 7, 10, 99, 100, 176] {
            let mut s = String::new();
            push_int(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }

    #[test]
    fn text_fits_the_print_area() {
        assert_eq!(font_pt(10), 7.0);
        assert!(font_pt(40) < 4.4 && font_pt(40) >= 4.0);
        assert_eq!(font_pt(200), 4.0);
    }
}
