//! The one escape of field data in railyard's ZPL files (`labels/<rack>.zpl`, for Zebra label
//! printers).
//!
//! Zebra's ZPL II Programming Guide (45541L-004, `^FD`): field data "can be any printable
//! character except those used as command prefixes (`^` and `~`)", and "characters with codes
//! above 127, or the `^` and `~` characters, can be printed using the `^FH` and `^FD`
//! commands"; `^FH` makes `_` (its default indicator) followed by two hexadecimal digits one
//! byte of the field. Every field railyard writes is therefore preceded by `^FH` and passed
//! through [`field`]: `^`, `~`, `_` itself, control characters and every byte of a non-ASCII
//! character (the label format selects UTF-8 with `^CI28`) become `_XX`, everything else is as
//! is. A field longer than `^FD` accepts (3,072 bytes) is refused, never cut.

/// The most bytes one `^FD` holds (ZPL II Programming Guide, `^FD` "any data string up to 3072
/// bytes").
pub const FIELD_MAX: usize = 3072;

/// Why a text cannot be one ZPL field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZplError(pub String);

impl std::fmt::Display for ZplError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ZplError {}

/// `text` as the data of a field opened by `^FH^FD` (see the module's comment).
pub fn field(text: &str) -> Result<String, ZplError> {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if (b.is_ascii_graphic() && !matches!(b, b'^' | b'~' | b'_')) || b == b' ' {
            out.push(char::from(b));
        } else {
            out.push('_');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        }
    }
    if out.len() > FIELD_MAX {
        return Err(ZplError(format!(
            "`{}` is {} bytes as ZPL field data; a field holds at most {FIELD_MAX}",
            text.escape_default(),
            out.len()
        )));
    }
    Ok(out)
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// The text [`field`] was given, from its output (the inverse of the escape; for tests and
/// readers of railyard's ZPL files).
pub fn unfield(data: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(data.len());
    let mut it = data.bytes();
    while let Some(b) = it.next() {
        if b == b'_' {
            let hi = char::from(it.next()?).to_digit(16)?;
            let lo = char::from(it.next()?).to_digit(16)?;
            bytes.push(u8::try_from(hi * 16 + lo).ok()?);
        } else {
            bytes.push(b);
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_the_indicator_are_hex_escaped() {
        assert_eq!(field("leaf_01:swp1").unwrap(), "leaf_5F01:swp1");
        assert_eq!(field("a^XZ~JR").unwrap(), "a_5EXZ_7EJR");
        assert_eq!(field("x\ny").unwrap(), "x_0Ay");
        assert_eq!(field("µ").unwrap(), "_C2_B5");
        assert_eq!(field("A B,c/1").unwrap(), "A B,c/1");
    }

    #[test]
    fn escaping_is_reversible() {
        for s in ["leaf_01", "^FS~", "rack 1.gpu001:mlx5_0", "µ_^", ""] {
            assert_eq!(unfield(&field(s).unwrap()).as_deref(), Some(s));
        }
    }

    #[test]
    fn a_field_too_long_is_refused_not_cut() {
        assert!(field(&"a".repeat(FIELD_MAX)).is_ok());
        let e = field(&"_".repeat(FIELD_MAX / 3 + 1)).unwrap_err();
        assert!(e.0.contains("at most 3072"), "{e}");
    }
}
