//! The grammars of every spec string that becomes part of something railyard writes: a file
//! name, a shell word, an interface or host name, a configuration token. A spec string is
//! checked against its grammar where the spec is read (`spec::grammar`, all problems at once,
//! each at its place in the file) and then held as the type of that grammar, which cannot be
//! built from a string outside it. The sinks escape on top of that (`output::shell`,
//! `output::markup`, `output::csv`, the template environments), so each layer holds on its own.
//!
//! The grammars are deliberately narrower than what each consumer would take: a name that is
//! safe as a file name, a shell word, an XML attribute, a YAML scalar, a Kubernetes label value
//! and a token of every switch OS's CLI at once, so no sink needs to know where a name came from.

use std::borrow::Borrow;
use std::fmt;
use std::net::IpAddr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grammar {
    /// Device, cluster, catalog-model and peer names: letters, digits, `_ . -`, not starting
    /// with `.` or `-`, at most 63 characters (one DNS label, one Kubernetes label value).
    Name,
    /// Interface and port names (`swp1s0`, `Ethernet1/1`, `OSFP4P2`, `mlx5_0`): letters, digits,
    /// `_ . : / -`, starting with a letter or digit, at most 32 characters.
    IfName,
    /// A port-name pattern of the catalog (`swp{cage}s{lane}`): an interface name whose
    /// placeholders `{cage}`, `{lane}`, `{lane1}` are filled in per port.
    IfPattern,
    /// A DNS name (RFC 1123 §2.1): labels of letters, digits and `-`, not starting or ending
    /// with `-`, at most 63 characters each, 253 in all.
    DomainName,
    /// A server: an IP address or a DNS name.
    Host,
    /// An IPv4 or IPv6 address.
    IpAddress,
    /// A BGP route target (RFC 4360 §3–4, as FRR, EOS and NVUE write it): `<2-byte ASN>:<32-bit>`,
    /// `<4-byte ASN>:<16-bit>` or `<IPv4>:<16-bit>`.
    RouteTarget,
    /// An environment variable name as railyard declares secrets: upper-case letters, digits and
    /// `_`, not starting with a digit (POSIX.1-2017 §8.1's portable form), at most 64 characters.
    EnvName,
    /// A Kubernetes label-key prefix: a DNS subdomain of lowercase letters, digits, `-` and `.`
    /// (Kubernetes "Labels and Selectors": at most 253 characters).
    LabelPrefix,
    /// An absolute path on a node, of plain names (letters, digits, `_ . -`; no `.` or `..`).
    NodePath,
    /// `NCCL_SOCKET_IFNAME`: an optional `^` (exclude) and/or `=` (exact), then interface-name
    /// prefixes separated by commas (NCCL environment variables documentation).
    IfnameList,
    /// Free text printed for people (descriptions, vendors, sources, the site): any printable
    /// characters on one line, at most 4096; no control characters (C0, DEL, C1), no
    /// bidirectional overrides, which would make a printed line say something else, and no
    /// noncharacters (U+FFFE, U+FFFF, …), which XML cannot carry.
    Text,
}

/// Why a string is outside its grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrammarError {
    pub grammar: Grammar,
    pub reason: String,
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.reason, self.grammar.describe())
    }
}

impl std::error::Error for GrammarError {}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

fn is_ifname_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '/' | '-')
}

/// The first character of `s` that `ok` refuses, shown for a person.
fn bad_char(s: &str, ok: impl Fn(char) -> bool) -> Option<String> {
    s.chars().find(|&c| !ok(c)).map(|c| {
        if c.is_control() || c.is_whitespace() {
            format!("{:?}", c).trim_matches('\'').to_string()
        } else {
            c.to_string()
        }
    })
}

fn dns_label(l: &str) -> Result<(), String> {
    if l.is_empty() || l.len() > 63 {
        return Err(format!("a label of {} characters", l.len()));
    }
    let shown = l.escape_debug();
    if l.starts_with('-') || l.ends_with('-') {
        return Err(format!("the label `{shown}` starts or ends with `-`"));
    }
    match bad_char(l, |c| c.is_ascii_alphanumeric() || c == '-') {
        Some(c) => Err(format!("`{c}` in the label `{shown}`")),
        None => Ok(()),
    }
}

fn domain_name(s: &str) -> Result<(), String> {
    if s.len() > 253 {
        return Err(format!("{} characters", s.len()));
    }
    s.strip_suffix('.')
        .unwrap_or(s)
        .split('.')
        .try_for_each(dns_label)
}

fn route_target(s: &str) -> Result<(), String> {
    let (admin, local) = s
        .rsplit_once(':')
        .ok_or_else(|| "no `:` between the administrator and the number".to_string())?;
    let number = |v: &str, max: u64| -> Result<(), String> {
        match v.parse::<u64>() {
            Ok(n) if n <= max && !v.starts_with('+') => Ok(()),
            _ => Err(format!(
                "`{}` is not a number from 0 to {max}",
                v.escape_debug()
            )),
        }
    };
    if admin.contains('.') {
        admin
            .parse::<std::net::Ipv4Addr>()
            .map_err(|_| format!("`{}` is not an IPv4 address", admin.escape_debug()))?;
        return number(local, u64::from(u16::MAX));
    }
    match admin.parse::<u64>() {
        Ok(asn) if asn <= u64::from(u16::MAX) => number(local, u64::from(u32::MAX)),
        Ok(asn) if asn <= u64::from(u32::MAX) => number(local, u64::from(u16::MAX)),
        _ => Err(format!(
            "`{}` is not an ASN or an IPv4 address",
            admin.escape_debug()
        )),
    }
}

fn pattern(s: &str) -> Result<(), String> {
    // Placeholders become digits: check the pattern with each replaced by one.
    let mut filled = String::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        filled.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| "a `{` without its `}`".to_string())?;
        let field = &rest[open + 1..open + close];
        if !matches!(field, "cage" | "lane" | "lane1") {
            return Err(format!(
                "`{{{}}}` is not a placeholder (`{{cage}}`, `{{lane}}`, `{{lane1}}`)",
                field.escape_debug()
            ));
        }
        filled.push('1');
        rest = &rest[open + close + 1..];
    }
    filled.push_str(rest);
    if filled.contains('}') {
        return Err("a `}` without its `{`".into());
    }
    Grammar::IfName.check(&filled).map_err(|e| e.reason)
}

fn text(s: &str) -> Result<(), String> {
    let n = s.chars().count();
    if n > 4096 {
        return Err(format!("{n} characters"));
    }
    let bidi = |c: char| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    if let Some(c) = bad_char(s, |c| !c.is_control() && !bidi(c)) {
        return Err(format!("the control character {c}"));
    }
    // Unicode's noncharacters are not for interchange, and XML 1.0 cannot carry U+FFFE and
    // U+FFFF at all: the report and every XML output would lose them without a word.
    let nonchar = |c: char| matches!(c, '\u{FDD0}'..='\u{FDEF}') || (c as u32) & 0xFFFE == 0xFFFE;
    match s.chars().find(|&c| nonchar(c)) {
        Some(c) => Err(format!("the noncharacter U+{:04X}", c as u32)),
        None => Ok(()),
    }
}

impl Grammar {
    /// The grammar in words, for the help line of a diagnostic.
    pub fn describe(self) -> &'static str {
        match self {
            Grammar::Name => {
                "a name: letters, digits, `_`, `.`, `-`, not starting with `.` or `-`, at most 63"
            }
            Grammar::IfName => {
                "an interface name: letters, digits, `_ . : / -`, starting with a letter or digit, at most 32"
            }
            Grammar::IfPattern => {
                "a port-name pattern: an interface name with `{cage}`, `{lane}` or `{lane1}`"
            }
            Grammar::DomainName => {
                "a DNS name: labels of letters, digits and `-` joined by `.` (RFC 1123)"
            }
            Grammar::Host => "an IP address or a DNS name",
            Grammar::IpAddress => "an IPv4 or IPv6 address",
            Grammar::RouteTarget => {
                "a route target `ASN:number` or `IPv4:number` (RFC 4360), e.g. `65000:100`"
            }
            Grammar::EnvName => {
                "an environment variable name: upper-case letters, digits and `_`, not starting with a digit"
            }
            Grammar::LabelPrefix => {
                "a Kubernetes label prefix: a DNS subdomain in lowercase, e.g. `railyard.example.com`"
            }
            Grammar::NodePath => {
                "an absolute path of plain names, e.g. `/etc/railyard/nccl-topo.xml`"
            }
            Grammar::IfnameList => {
                "an NCCL interface list: `eth`, `=bond0` or `^lo,docker` (names of letters, digits, `_ . : -`)"
            }
            Grammar::Text => "one line of printable text, at most 4096 characters",
        }
    }

    /// Whether `s` is in the grammar; `Err` says why not.
    pub fn check(self, s: &str) -> Result<(), GrammarError> {
        let fail = |reason: String| GrammarError {
            grammar: self,
            reason,
        };
        let checked = match self {
            Grammar::Name => {
                if s.is_empty() || s.len() > 63 {
                    Err(format!("{} characters", s.len()))
                } else if s.starts_with(['.', '-']) {
                    Err("it starts with `.` or `-`".into())
                } else {
                    bad_char(s, is_name_char).map_or(Ok(()), |c| Err(format!("`{c}`")))
                }
            }
            Grammar::IfName => {
                if s.is_empty() || s.len() > 32 {
                    Err(format!("{} characters", s.len()))
                } else if !s.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                    Err("it does not start with a letter or digit".into())
                } else {
                    bad_char(s, is_ifname_char).map_or(Ok(()), |c| Err(format!("`{c}`")))
                }
            }
            Grammar::IfPattern => pattern(s),
            Grammar::DomainName => domain_name(s),
            Grammar::Host => {
                if s.parse::<IpAddr>().is_ok() {
                    Ok(())
                } else {
                    domain_name(s)
                }
            }
            Grammar::IpAddress => s
                .parse::<IpAddr>()
                .map(|_| ())
                .map_err(|_| "not an address".to_string()),
            Grammar::RouteTarget => route_target(s),
            Grammar::EnvName => {
                if s.is_empty() || s.len() > 64 {
                    Err(format!("{} characters", s.len()))
                } else if s.starts_with(|c: char| c.is_ascii_digit()) {
                    Err("it starts with a digit".into())
                } else {
                    bad_char(s, |c| {
                        c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'
                    })
                    .map_or(Ok(()), |c| Err(format!("`{c}`")))
                }
            }
            Grammar::LabelPrefix => {
                if s.bytes().any(|b| b.is_ascii_uppercase()) {
                    Err("an uppercase letter".into())
                } else {
                    domain_name(s)
                }
            }
            Grammar::NodePath => match s.strip_prefix('/') {
                None => Err("it is not absolute".into()),
                Some(_) if s.len() > 255 => Err(format!("{} characters", s.len())),
                Some(rest) => rest.split('/').try_for_each(|c| {
                    if c.is_empty() || c == "." || c == ".." {
                        Err(format!("the component `{c}`"))
                    } else {
                        bad_char(c, is_name_char).map_or(Ok(()), |c| Err(format!("`{c}`")))
                    }
                }),
            },
            Grammar::IfnameList => {
                let body = s.strip_prefix('^').unwrap_or(s);
                let body = body.strip_prefix('=').unwrap_or(body);
                if body.is_empty() || s.len() > 256 {
                    Err("no interface name".into())
                } else {
                    body.split(',').try_for_each(|n| {
                        if n.is_empty() {
                            Err("an empty name between commas".into())
                        } else {
                            bad_char(n, |c| {
                                c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')
                            })
                            .map_or(Ok(()), |c| Err(format!("`{c}`")))
                        }
                    })
                }
            }
            Grammar::Text => text(s),
        };
        checked.map_err(fail)
    }
}

/// A string of one grammar, as its type: built only through [`Ident::parse`] (or a
/// deserializer, which parses), so holding one means the string is in the grammar.
macro_rules! ident {
    ($(#[$doc:meta])* $name:ident, $grammar:expr) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        // Printed as the string it is (messages list names with `{:?}`).
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        impl $name {
            pub const GRAMMAR: Grammar = $grammar;

            /// `s` as this type, if it is in the grammar.
            pub fn parse(s: &str) -> Result<Self, GrammarError> {
                Self::GRAMMAR.check(s).map(|()| Self(s.to_string()))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// A value railyard's own code spells out (a default): one outside the grammar
            /// is a bug in railyard, caught by the tests that use the default.
            pub fn known(s: &'static str) -> Self {
                match Self::parse(s) {
                    Ok(v) => v,
                    Err(e) => panic!("railyard bug: the built-in value `{s}` is not {e}"),
                }
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        // Maps keyed by this type are looked up with the plain strings other stages hold.
        impl Borrow<String> for $name {
            fn borrow(&self) -> &String {
                &self.0
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                self == &other.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl From<$name> for String {
            fn from(v: $name) -> String {
                v.0
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Self::parse(&s).map_err(serde::de::Error::custom)
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "description": Self::GRAMMAR.describe(),
                })
            }
        }
    };
}

ident!(
    /// A device, cluster, catalog-model or peer name ([`Grammar::Name`]).
    Name,
    Grammar::Name
);
ident!(
    /// An interface or port name ([`Grammar::IfName`]).
    IfName,
    Grammar::IfName
);
ident!(
    /// A catalog port-name pattern ([`Grammar::IfPattern`]).
    IfPattern,
    Grammar::IfPattern
);
ident!(
    /// A DNS name ([`Grammar::DomainName`]).
    DomainName,
    Grammar::DomainName
);
ident!(
    /// A server: IP address or DNS name ([`Grammar::Host`]).
    Host,
    Grammar::Host
);
ident!(
    /// A route target ([`Grammar::RouteTarget`]).
    RouteTarget,
    Grammar::RouteTarget
);
ident!(
    /// An environment variable name ([`Grammar::EnvName`]).
    EnvName,
    Grammar::EnvName
);
ident!(
    /// A Kubernetes label-key prefix ([`Grammar::LabelPrefix`]).
    LabelPrefix,
    Grammar::LabelPrefix
);
ident!(
    /// An absolute path on a node ([`Grammar::NodePath`]).
    NodePath,
    Grammar::NodePath
);
ident!(
    /// An `NCCL_SOCKET_IFNAME` value ([`Grammar::IfnameList`]).
    IfnameList,
    Grammar::IfnameList
);
ident!(
    /// Free text for people ([`Grammar::Text`]).
    Text,
    Grammar::Text
);

impl Default for Text {
    /// No text (an optional description or source left out).
    fn default() -> Self {
        Text(String::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(g: Grammar, s: &str) -> bool {
        g.check(s).is_ok()
    }

    #[test]
    fn names() {
        for s in [
            "leaf-su01-01",
            "dgx-h100",
            "sn5600",
            "x86_64-nvidia_sn5600-r0",
            "a.b",
        ] {
            assert!(ok(Grammar::Name, s), "{s}");
        }
        for s in [
            "",
            "../../../../tmp/x",
            "a/b",
            "-rf",
            ".hidden",
            "a b",
            "a\nb",
            "x;reboot",
            "$(id)",
            "a'b",
            &"x".repeat(64),
        ] {
            assert!(!ok(Grammar::Name, s), "{s:?}");
        }
    }

    #[test]
    fn interfaces_and_patterns() {
        for s in [
            "swp1s0",
            "Ethernet1/1",
            "OSFP4P2",
            "mlx5_0",
            "eth0",
            "Management1",
        ] {
            assert!(ok(Grammar::IfName, s), "{s}");
        }
        for s in [
            "",
            "swp1\nip route 0.0.0.0/0 10.0.0.1",
            "eth 0",
            "-x",
            "a\"b",
        ] {
            assert!(!ok(Grammar::IfName, s), "{s:?}");
        }
        assert!(ok(Grammar::IfPattern, "swp{cage}s{lane}"));
        assert!(ok(Grammar::IfPattern, "Ethernet{cage}/{lane1}"));
        assert!(!ok(Grammar::IfPattern, "swp{port}"));
        assert!(!ok(Grammar::IfPattern, "swp{cage"));
        assert!(!ok(Grammar::IfPattern, "swp{cage}\n"));
    }

    #[test]
    fn hosts_domains_and_route_targets() {
        for s in [
            "10.0.0.1",
            "2001:db8::1",
            "ntp.example.com",
            "pool.ntp.org.",
        ] {
            assert!(ok(Grammar::Host, s), "{s}");
        }
        for s in ["ntp example", "a..b", "-a.com", "x\nusername backdoor", ""] {
            assert!(!ok(Grammar::Host, s), "{s:?}");
        }
        for s in ["65000:100", "4200000000:1", "10.0.0.1:7", "1:4294967295"] {
            assert!(ok(Grammar::RouteTarget, s), "{s}");
        }
        for s in [
            "Z",
            "65000",
            "4200000000:70000",
            "10.0.0.1:70000",
            "a:1",
            "1:-1",
            "1:+1",
        ] {
            assert!(!ok(Grammar::RouteTarget, s), "{s}");
        }
    }

    #[test]
    fn env_paths_lists_and_text() {
        assert!(ok(Grammar::EnvName, "RAILYARD_BGP_PASSWORD"));
        for s in ["AWS SECRET", "${X}", "1X", ""] {
            assert!(!ok(Grammar::EnvName, s), "{s}");
        }
        assert!(ok(Grammar::LabelPrefix, "railyard.example.com"));
        assert!(!ok(Grammar::LabelPrefix, "Railyard.io"));
        assert!(ok(Grammar::NodePath, "/etc/railyard/nccl-topo.xml"));
        for s in ["etc/x", "/etc/../x", "/a b", "/a//b", "/a;b"] {
            assert!(!ok(Grammar::NodePath, s), "{s}");
        }
        for s in ["eth", "=bond0", "^lo,docker", "^=eth0"] {
            assert!(ok(Grammar::IfnameList, s), "{s}");
        }
        for s in ["", "^", "a,,b", "eth0 ; reboot", "eth0\n"] {
            assert!(!ok(Grammar::IfnameList, s), "{s:?}");
        }
        assert!(ok(Grammar::Text, "Spectrum-4 SN5600, 51.2 Tb/s — «ok»"));
        for s in [
            "a\nb",
            "a\u{1b}[2Jb",
            "a\u{202E}b",
            "a\u{85}b",
            "a\u{FFFE}b",
            "a\u{FFFF}",
            "\u{FDD0}",
            "\u{10FFFF}",
        ] {
            assert!(!ok(Grammar::Text, s), "{s:?}");
        }
    }

    #[test]
    fn a_type_holds_only_its_grammar() {
        assert!(Name::parse("leaf01").is_ok());
        assert!(Name::parse("../x").is_err());
        let e: Result<Name, _> = serde_json::from_str("\"a b\"");
        assert!(e.is_err());
        let n: Name = serde_json::from_str("\"leaf01\"").unwrap();
        assert_eq!(n, "leaf01");
        assert_eq!(serde_json::to_string(&n).unwrap(), "\"leaf01\"");
    }
}
