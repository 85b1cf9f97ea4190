//! `lspci -tv` (pciutils): the PCI tree as ASCII art. A line holds one path of the tree:
//!
//! ```text
//! -+-[0000:15]-+-00.0  Intel Corporation Device 09a2
//!  |           \-01.0-[16-1b]----00.0-[17-1b]--+-00.0-[18]----00.0  Mellanox Technologies MT2910 Family [ConnectX-7]
//!  |                                           \-01.0-[19-1b]----00.0-[1a-1b]----00.0-[1b]----00.0  NVIDIA Corporation GH100 [H100 SXM5 80GB]
//! ```
//!
//! `[dddd:bb]` opens a root bus; `DD.F` is a device on the current bus; `-[ss-ee]` after a device
//! makes it a bridge whose children sit on bus `ss`; `-+-` opens children whose later siblings
//! start with `+-` or `\-` in the same column; `----` and `--` lead to an only child. With
//! `lspci -tvnn` names end in `[vvvv:dddd]`.

use std::collections::BTreeMap;

use crate::capture::{Line, error, lines};
use crate::diag::{Diagnostics, SourceFile, Span, codes};

/// One PCI function of the tree.
#[derive(Clone, Debug)]
pub struct PciDevice {
    /// `0000:1b:00.0`.
    pub busid: String,
    /// The bridge above it (`None` on a root bus).
    pub parent: Option<String>,
    /// The name lspci prints (empty for bridges printed without one).
    pub name: String,
    pub span: Span,
}

const HELP: &str = "give the unmodified output of `lspci -tv` (or `lspci -tvnn`)";

/// Column marker of the list of root buses (no bus of its own).
const ROOTS: (u32, u32) = (u32::MAX, u32::MAX);

fn hex(s: &[u8]) -> bool {
    s.iter().all(u8::is_ascii_hexdigit)
}

/// Every device of the tree, by bus id.
pub fn parse(src: &SourceFile, diags: &mut Diagnostics) -> BTreeMap<String, PciDevice> {
    let mut out: BTreeMap<String, PciDevice> = BTreeMap::new();
    // Column of a `+`/`\` → (domain, bus) of the children hanging there.
    let mut columns: BTreeMap<usize, (u32, u32)> = BTreeMap::new();
    // (domain, secondary bus) → the bridge leading to it.
    let mut bridge_of: BTreeMap<(u32, u32), String> = BTreeMap::new();
    let mut domain = 0u32;
    for line in lines(src) {
        if line.text.trim().is_empty() {
            continue;
        }
        if let Err(at) = walk(&line, &mut columns, &mut bridge_of, &mut domain, &mut out) {
            diags.push(error(
                codes::CAPTURE_SYNTAX,
                at,
                "not a line of `lspci -tv` output (or cut short)",
                "unreadable tree",
                HELP,
            ));
        }
    }
    if out.is_empty() && !diags.has_errors() {
        diags.push(error(
            codes::CAPTURE_SYNTAX,
            Span::new(0, 1),
            "no PCI device found: this is not `lspci -tv` output",
            "empty tree",
            HELP,
        ));
    }
    out
}

fn walk(
    line: &Line<'_>,
    columns: &mut BTreeMap<usize, (u32, u32)>,
    bridge_of: &mut BTreeMap<(u32, u32), String>,
    domain: &mut u32,
    out: &mut BTreeMap<String, PciDevice>,
) -> Result<(), Span> {
    let b = line.text.as_bytes();
    let bad = |i: usize| Span::new(line.start + i.min(b.len().saturating_sub(1)), 1);
    let mut i = 0;
    // The bus the next device sits on, once a root, bridge or branch names it.
    let mut pending: Option<(u32, u32)> = None;
    let mut next: Option<(u32, u32)> = None;
    while i < b.len() {
        match b[i] {
            b' ' | b'|' => i += 1,
            b'[' => {
                // `[dddd:bb]` root bus.
                let end = i + 9;
                if end < b.len()
                    && b[end - 1] == b']'
                    && b[i + 5] == b':'
                    && hex(&b[i + 1..i + 5])
                    && hex(&b[i + 6..i + 8])
                {
                    let d =
                        u32::from_str_radix(&line.text[i + 1..i + 5], 16).map_err(|_| bad(i))?;
                    let bus =
                        u32::from_str_radix(&line.text[i + 6..i + 8], 16).map_err(|_| bad(i))?;
                    *domain = d;
                    pending = Some((d, bus));
                    i = end;
                } else {
                    return Err(bad(i));
                }
            }
            b'+' | b'\\' => {
                let after = b.get(i + 2).copied();
                if after == Some(b'[') {
                    // A branch of the list of root buses; the root marker sets the bus.
                    columns.entry(i).or_insert(ROOTS);
                } else if b[i] == b'+' && i > 0 && b[i - 1] == b'-' && next.is_none() {
                    // `-+-` after a root or bridge: opens a branch column for its children.
                    let bus = pending.ok_or_else(|| bad(i))?;
                    columns.insert(i, bus);
                    next = Some(bus);
                } else {
                    let bus = *columns.get(&i).ok_or_else(|| bad(i))?;
                    next = (bus != ROOTS).then_some(bus);
                }
                i += 1;
            }
            b'-' => {
                let run = b[i..].iter().take_while(|c| **c == b'-').count();
                if b.get(i + run).is_some_and(u8::is_ascii_hexdigit) && next.is_none() {
                    // `--` / `----`: an only child on the pending bus.
                    next = pending;
                }
                i += run;
            }
            c if c.is_ascii_hexdigit() => {
                // `DD.F`
                if i + 4 > b.len()
                    || b[i + 2] != b'.'
                    || !hex(&b[i..i + 2])
                    || !(b'0'..=b'7').contains(&b[i + 3])
                {
                    return Err(bad(i));
                }
                let (d, bus) = next.or(pending).unwrap_or((*domain, 0));
                let busid = format!("{d:04x}:{bus:02x}:{}", &line.text[i..i + 4]).to_lowercase();
                let span = Span::new(line.start + i, 4);
                i += 4;
                let parent = bridge_of.get(&(d, bus)).cloned();
                let mut name = String::new();
                pending = None;
                next = None;
                if line.text[i..].starts_with("-[") {
                    let close = line.text[i..].find(']').ok_or_else(|| bad(i))? + i;
                    let range = &line.text[i + 2..close];
                    let first = range.split('-').next().unwrap_or("");
                    let sec = u32::from_str_radix(first, 16).map_err(|_| bad(i))?;
                    bridge_of.insert((d, sec), busid.clone());
                    pending = Some((d, sec));
                    i = close + 1;
                } else if line.text[i..].starts_with("  ") {
                    name = line.text[i..].trim().to_string();
                    i = b.len();
                }
                out.insert(
                    busid.clone(),
                    PciDevice {
                        busid,
                        parent,
                        name,
                        span,
                    },
                );
            }
            _ => return Err(bad(i)),
        }
    }
    Ok(())
}

impl PciDevice {
    /// `[10de:2330]` at the end of an `lspci -tvnn` name.
    pub fn ids(&self) -> Option<(String, String)> {
        let open = self.name.rfind('[')?;
        let inner = self.name[open + 1..].strip_suffix(']')?;
        let (v, d) = inner.split_once(':')?;
        (v.len() == 4 && d.len() == 4 && hex(v.as_bytes()) && hex(d.as_bytes()))
            .then(|| (format!("0x{v}"), format!("0x{d}")))
    }
}

/// The chain of bridges above `busid`, root side first.
pub fn ancestors(tree: &BTreeMap<String, PciDevice>, busid: &str) -> Vec<String> {
    let mut chain = Vec::new();
    let mut cur = tree.get(busid).and_then(|d| d.parent.clone());
    while let Some(b) = cur {
        if chain.contains(&b) {
            break;
        }
        cur = tree.get(&b).and_then(|d| d.parent.clone());
        chain.push(b);
    }
    chain.reverse();
    chain
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_with_branches_and_only_children() {
        let text = "\
-+-[0000:15]-+-00.0  Intel Corporation Device 09a2
 |           \\-01.0-[16-1b]----00.0-[17-1b]--+-00.0-[18]----00.0  Mellanox Technologies MT2910 Family [ConnectX-7]
 |                                           \\-01.0-[19-1b]----00.0-[1a-1b]----00.0-[1b]----00.0  NVIDIA Corporation GH100 [H100 SXM5 80GB]
 \\-[0000:00]-+-00.0  Intel Corporation Device 09a2
             \\-1f.0  Intel Corporation Device 1b81
";
        let mut d = Diagnostics::default();
        let t = parse(&SourceFile::new("l", text), &mut d);
        assert!(
            d.is_empty(),
            "{:?}",
            d.iter().map(|x| &x.message).collect::<Vec<_>>()
        );
        assert_eq!(t["0000:18:00.0"].parent.as_deref(), Some("0000:17:00.0"));
        assert_eq!(t["0000:17:00.0"].parent.as_deref(), Some("0000:16:00.0"));
        assert_eq!(t["0000:16:00.0"].parent.as_deref(), Some("0000:15:01.0"));
        assert_eq!(t["0000:15:01.0"].parent, None);
        assert_eq!(
            ancestors(&t, "0000:1b:00.0"),
            [
                "0000:15:01.0",
                "0000:16:00.0",
                "0000:17:01.0",
                "0000:19:00.0",
                "0000:1a:00.0"
            ]
        );
        assert!(t["0000:1b:00.0"].name.contains("H100"));
        assert!(t.contains_key("0000:00:1f.0"));
    }
}
