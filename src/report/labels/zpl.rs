//! `labels/<location>.zpl`: the labels in ZPL II, the language of Zebra label printers, to be
//! sent to the printer as is (`lp -o raw`, or a copy to its port 9100). The printer draws the QR
//! code itself from the cable id (`^BQ`): railyard draws none.
//!
//! One format (`^XA` … `^XZ`) per label (the first one also holds a `^FX` comment naming the
//! file), on the stock of `super::STOCK` at 203 dpi (8 dots/mm,
//! the resolution of the common Zebra desktop and industrial printers): `^PW406` (2.00 in)
//! by `^LL305` (1.50 in), everything in the 0.50 in (101-dot) print-on area at the top; the
//! clear tail below stays blank. Commands as the Zebra ZPL II Programming Guide (45541L-004)
//! gives them: `^CI28` selects UTF-8 for field data; `^FO` places a field; `^BQN,2,3` is a QR
//! code, model 2, 3 dots per module, whose `^FD` begins with the error-correction level and
//! the input mode (`MA,`: level M as the HTML sheets, automatic input); `^A0N,h,w` is the
//! scalable font at h × w dots; every `^FD` is opened by `^FH` and its data escaped by the one
//! escape of ZPL field data (`output::zpl::field`).

use super::{CableLabel, Location};
use crate::output::zpl::{ZplError, field};
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup};

/// Width of the text column right of the QR code, in dots (406 − 92 − 6).
const TEXT_DOTS: usize = 308;
/// Height of a text line and its font, in dots: five lines in the 101-dot print area.
const LINE_DOTS: usize = 19;
const FONT_DOTS: usize = 17;
/// The most bytes a QR code holds at level M in byte mode (version 40; ISO/IEC 18004:2015,
/// Table 7): a longer cable id has no code, and a label without its code is not a label.
const QR_MAX_M: usize = 2331;

/// The ZPL of one location's labels, two per cable.
pub(super) fn file(cluster: &str, loc: &Location<'_>) -> Result<OutputFile, FileError> {
    let path = format!("labels/{}.zpl", loc.name);
    let mut out = String::with_capacity(loc.cables.len() * 2 * 420);
    // A comment (`^FX`) in the first label's format says what the file is when opened (a
    // format of its own would feed a blank label).
    let mut comment = Some(
        field(&format!(
            "{cluster} cable labels, {} {}",
            loc.kind, loc.name
        ))
        .in_file(&path)?,
    );
    for cable in &loc.cables {
        if cable.id.len() > QR_MAX_M {
            return Err(FileError::new(
                &path,
                format!(
                    "cable id `{}` ({} bytes) does not fit a QR code",
                    cable.id.escape_default(),
                    cable.id.len()
                ),
            ));
        }
        for end in 0..2 {
            label(&mut out, cable, end, comment.take().as_deref()).in_file(&path)?;
        }
    }
    Ok(OutputFile::new(OutputGroup::Report, path, out))
}

/// One label: the QR code at the left, the five lines of text beside it.
fn label(
    out: &mut String,
    cable: &CableLabel<'_>,
    end: usize,
    comment: Option<&str>,
) -> Result<(), ZplError> {
    let lines = cable.lines(end);
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    out.push_str("^XA");
    if let Some(c) = comment {
        out.push_str("^FX");
        out.push_str(c);
        out.push_str("^FS");
    }
    out.push_str("^CI28^PW406^LL305^LH0,0\n");
    out.push_str("^FO6,4^BQN,2,3^FH^FDMA,");
    out.push_str(&field(cable.id)?);
    out.push_str("^FS\n");
    let width = font_width(longest);
    for (k, line) in lines.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        let y = 4 + k * LINE_DOTS;
        out.push_str(&format!("^FO92,{y}^A0N,{FONT_DOTS},{width}^FH^FD"));
        out.push_str(&field(line)?);
        out.push_str("^FS\n");
    }
    out.push_str("^XZ\n");
    Ok(())
}

/// The font's character width in dots for the longest line to fit the text column: font 0
/// advances about 0.6 of its width per character; between 8 (still legible at 203 dpi) and
/// 15 dots.
fn font_width(longest: usize) -> usize {
    (TEXT_DOTS * 10 / (6 * longest.max(1))).clamp(8, 15)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn location(id: &str) -> Location<'_> {
        super::super::one_cable(id, "MCP4Y10-N001")
    }

    #[test]
    fn one_format_per_label_with_the_printers_qr_code() {
        let f = file("c^1", &location("c1-x")).unwrap();
        let zpl = String::from_utf8(f.bytes.to_vec()).unwrap();
        assert_eq!(f.path, "labels/r1.zpl");
        // Two labels, the first with the comment.
        assert_eq!(zpl.matches("^XA").count(), 2);
        assert_eq!(zpl.matches("^XZ").count(), 2);
        assert!(
            zpl.starts_with("^XA^FXc_5E1 cable labels, rack r1^FS^CI28"),
            "{zpl}"
        );
        assert_eq!(zpl.matches("^BQN,2,3^FH^FDMA,c1-x^FS").count(), 2);
        // `_` and `^` of names are hex escapes, never a command.
        assert!(zpl.contains("^FDA r1.leaf_5F1:swp1^FS"), "{zpl}");
        assert!(!zpl.contains("^1"));
    }

    #[test]
    fn an_id_too_long_for_a_qr_code_is_an_error() {
        let id = "c".repeat(QR_MAX_M + 1);
        let e = file("c", &location(&id)).unwrap_err();
        assert!(e.reason.contains("does not fit a QR code"), "{e}");
    }

    #[test]
    fn long_lines_narrow_the_font() {
        assert_eq!(font_width(10), 15);
        assert_eq!(font_width(40), 12);
        assert_eq!(font_width(200), 8);
    }
}
