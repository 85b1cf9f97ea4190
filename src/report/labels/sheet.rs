//! The office-printer form of the labels (on request: `build --only labels`): one HTML page per
//! location, one label per printed page on the stock of `super::STOCK`, each with a QR code of
//! the cable id (ISO/IEC 18004, error correction M) drawn as an SVG path, the cable id with the
//! end letter, the label text exactly as in `cabling.csv` on two lines (`A-end/` then `B-end`),
//! the line of the end the label sits on marked, then the cable part and leg and the modules.

use qrcodegen::{Mask, QrCode, QrCodeEcc, QrSegment, Version};

use super::{CableLabel, ENDS, Location, STOCK};
use crate::output::FileError;
use crate::output::{OutputFile, OutputGroup};
use crate::report::markup::Markup;

/// Text room right of the QR code, in points (2.00 in − margins − 0.44 in code).
const TEXT_WIDTH_PT: f64 = 104.0;
/// Advance of one DejaVu Sans Mono character, in em.
const MONO_ADVANCE: f64 = 0.602;
/// Five lines of 1.12 em in the 0.5 in print area less its 0.03 in padding (31.7 pt).
const MAX_PT: f64 = 5.6;

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
    (pt.clamp(4.0, MAX_PT) * 10.0).floor() / 10.0
}

/// One location's label sheet; an error when a cable id does not fit a QR code (a label
/// without its code is not a label).
pub(super) fn file(cluster: &str, loc: &Location<'_>) -> Result<OutputFile, FileError> {
    let (name, kind) = (loc.name.as_str(), loc.kind);
    let path = format!("labels/{name}.html");
    let mut m = Markup::with_capacity(loc.cables.len() * 2200);
    m.trusted("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    m.trusted("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n");
    m.element("title", &[], &format!("Cable labels — {kind} {name}"));
    m.open("style", &[]).trusted(CSS).close("style");
    m.trusted("\n</head>\n<body>\n");
    m.open("header", &[("class", &"info")]);
    m.element(
        "h1",
        &[],
        &format!("{cluster} — cable labels, {kind} {name}"),
    );
    let n = loc.cables.len();
    m.element(
        "p",
        &[],
        &format!(
            "{n} cables, {} labels (A end and B end of each). Stock: {STOCK}.",
            n * 2
        ),
    );
    m.element(
        "p",
        &[],
        "Print at 100 % scale with no margins on a printer loaded with that stock: one label per page. The QR code holds the cable id; the marked line is the end the label goes on.",
    );
    m.close("header").newline();
    m.open("div", &[("class", &"sheet")]).newline();
    for (k, cable) in loc.cables.iter().enumerate() {
        let (d, n) = qr_path(cable.id).ok_or_else(|| {
            FileError::new(
                &path,
                format!(
                    "cable id `{}` ({} bytes) does not fit a QR code",
                    cable.id.escape_default(),
                    cable.id.len()
                ),
            )
        })?;
        let qr = Qr {
            id: format!("q{k}"),
            path: d,
            size: n,
        };
        for end in 0..2 {
            label(&mut m, cable, end, &qr);
        }
    }
    m.close("div").trusted("\n</body>\n</html>\n");
    Ok(OutputFile::new(OutputGroup::Labels, path, m.finish()))
}

/// A cable's QR code on its sheet: drawn on the A-end label, reused on the B-end one.
struct Qr {
    id: String,
    path: String,
    size: i32,
}

/// The label on end `here` (0 = A) of `cable`: the QR code, the cable id and end, the two ends
/// (`A-end/` then `B-end`, as the `label` column of `cabling.csv`, the end's own line marked),
/// then the cable part and leg and the modules.
fn label(m: &mut Markup, cable: &CableLabel<'_>, here: usize, qr: &Qr) {
    let lines = cable.lines(here);
    let first_line = format!("{}/", cable.ends[0]);
    let longest = [
        cable.id.len() + 4,
        first_line.chars().count(),
        cable.ends[1].chars().count(),
        lines[3].chars().count(),
        lines[4].chars().count(),
    ]
    .into_iter()
    .max()
    .unwrap_or(1);
    let style = format!("font-size:{}pt", font_pt(longest));
    let end = ENDS[here];
    m.open(
        "div",
        &[
            ("class", &"label"),
            ("data-cable", &cable.id),
            ("data-end", &end),
        ],
    );
    m.open("div", &[("class", &"print")]);
    let view = format!("-2 -2 {} {}", qr.size + 4, qr.size + 4);
    m.open("svg", &[("class", &"qr"), ("viewBox", &view)]);
    if here == 0 {
        m.empty(
            "path",
            &[
                ("id", &qr.id),
                ("fill", &"none"),
                ("stroke", &"#000"),
                ("stroke-width", &"1"),
                ("d", &qr.path),
            ],
        );
    } else {
        m.empty("use", &[("href", &format!("#{}", qr.id))]);
    }
    m.close("svg");
    m.open("div", &[("class", &"txt"), ("style", &style)]);
    m.open("div", &[("class", &"id")])
        .text(cable.id)
        .element("span", &[("class", &"end")], end)
        .close("div");
    let class = |line: usize| if line == here { "line here" } else { "line" };
    m.element("div", &[("class", &class(0))], &first_line);
    m.element("div", &[("class", &class(1))], &cable.ends[1]);
    for part in lines[3..].iter().filter(|l| !l.is_empty()) {
        m.element("div", &[("class", &"part")], part);
    }
    m.close("div").close("div");
    m.open("div", &[("class", &"tail")]).close("div");
    m.close("div").newline();
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
        let e = file("c", &super::super::one_cable(&id, "")).unwrap_err();
        assert_eq!(e.path, "labels/r1.html");
        assert!(e.reason.contains("does not fit a QR code"), "{e}");
        assert!(file("c", &super::super::one_cable("c1", "")).is_ok());
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
        assert_eq!(font_pt(10), MAX_PT);
        assert!(font_pt(40) < 4.4 && font_pt(40) >= 4.0);
        assert_eq!(font_pt(200), 4.0);
    }
}
