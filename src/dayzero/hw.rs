//! The two hardware identifiers an inventory gives: a MAC address and a serial number, parsed at
//! the boundary so no other byte reaches a DHCP reservation, a file name or a shell word.

use std::fmt;

/// An EUI-48 MAC address. Accepted as an inventory writes it: six pairs of hex digits separated
/// by `:` or `-` (NetBox, Linux), three groups of four separated by `.` (Cisco), or twelve hex
/// digits; shown lowercase with colons (Kea's `hw-address` form).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mac([u8; 6]);

impl Mac {
    pub fn parse(s: &str) -> Result<Mac, String> {
        let digits: String = s
            .chars()
            .filter(|c| !matches!(c, ':' | '-' | '.'))
            .collect();
        let grouped = match s.len() {
            12 => !s.contains([':', '-', '.']),
            14 => s.split('.').map(str::len).eq([4, 4, 4]),
            17 => {
                let sep = if s.contains(':') { ':' } else { '-' };
                s.split(sep).map(str::len).eq([2; 6])
            }
            _ => false,
        };
        if !grouped || digits.len() != 12 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!(
                "`{}` is not a MAC address (six hex pairs such as 1c:34:da:01:02:03)",
                s.escape_debug()
            ));
        }
        let mut bytes = [0u8; 6];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&digits[2 * i..2 * i + 2], 16)
                .map_err(|e| format!("`{}`: {e}", s.escape_debug()))?;
        }
        if bytes[0] & 1 == 1 {
            return Err(format!(
                "`{s}` is a multicast address (low bit of the first octet set): no device port has one"
            ));
        }
        if bytes == [0; 6] {
            return Err("`00:00:00:00:00:00` is no device's address".into());
        }
        Ok(Mac(bytes))
    }

    pub fn octets(self) -> [u8; 6] {
        self.0
    }
}

impl fmt::Display for Mac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e, g] = self.0;
        write!(f, "{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{g:02x}")
    }
}

/// A serial number: 1–64 ASCII letters, digits, `-`, `_`, `.` and `/`, not starting with `-`.
/// Switch vendors print serials in that alphabet (NVIDIA `MT2234X01234`, Arista `JPE12345678`);
/// it is also what a DHCP client id, a file name and a shell word can carry unescaped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Serial(String);

impl Serial {
    pub const MAX_LEN: usize = 64;

    pub fn parse(s: &str) -> Result<Serial, String> {
        let ok = !s.is_empty()
            && s.len() <= Self::MAX_LEN
            && !s.starts_with('-')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
        if ok {
            Ok(Serial(s.to_owned()))
        } else {
            Err(format!(
                "`{}` is not a serial number (1 to {} letters, digits, `- _ . /`, not starting with `-`)",
                s.escape_debug(),
                Self::MAX_LEN
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Serial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
