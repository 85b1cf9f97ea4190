//! The provisioning URL: where the operator serves the build's `dayzero/ztp/` tree, and what the
//! DHCP reservations point each switch at. It reaches a DHCP option, a JSON file and shell words,
//! so it is parsed once here into a narrow form, and a string outside it never gets further.

use std::fmt;

use crate::diag::Span;

/// `http://` or `https://`, a host (DNS name, IPv4 address, or `[IPv6]`), an optional port, and
/// an optional path of letters, digits and `- . _ ~ /`. No user, query or fragment: credentials
/// do not belong in a DHCP option every client on the segment can read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvisioningUrl(String);

/// Why a string is not a provisioning URL, and where in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlError {
    pub span: Span,
    pub message: String,
}

impl ProvisioningUrl {
    pub fn parse(s: &str) -> Result<ProvisioningUrl, UrlError> {
        let fail = |start: usize, len: usize, message: &str| UrlError {
            span: Span::new(start, len.max(1)),
            message: message.to_owned(),
        };
        let Some(rest_at) = ["http://", "https://"]
            .iter()
            .find(|p| s.starts_with(*p))
            .map(|p| p.len())
        else {
            return Err(fail(0, s.len(), "not an `http://` or `https://` URL"));
        };
        let rest = &s[rest_at..];
        let path_at = rest.find('/').unwrap_or(rest.len());
        let authority = &rest[..path_at];
        check_authority(authority).map_err(|(off, m)| fail(rest_at + off, 1, m))?;
        let path = &rest[path_at..];
        if let Some(off) = path.find(|c: char| !(c.is_ascii_alphanumeric() || "-._~/".contains(c)))
        {
            return Err(fail(
                rest_at + path_at + off,
                1,
                "a path holds letters, digits and `- . _ ~ /` only (no query, fragment, escape or space)",
            ));
        }
        Ok(ProvisioningUrl(s.trim_end_matches('/').to_owned()))
    }

    /// The URL of `file` (a relative path of plain components) under this one.
    pub fn join(&self, file: &str) -> String {
        format!("{}/{file}", self.0)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ProvisioningUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `host[:port]`: the offset of the first wrong byte and why.
fn check_authority(a: &str) -> Result<(), (usize, &'static str)> {
    if a.is_empty() {
        return Err((0, "the URL names no host"));
    }
    let (host, port_at) = if let Some(v6) = a.strip_prefix('[') {
        let end = v6.find(']').ok_or((0, "an IPv6 host is closed by `]`"))?;
        if v6[..end].parse::<std::net::Ipv6Addr>().is_err() {
            return Err((1, "not an IPv6 address"));
        }
        (&a[..end + 2], end + 2)
    } else {
        let end = a.find(':').unwrap_or(a.len());
        (&a[..end], end)
    };
    if !host.starts_with('[') {
        if let Some(off) = host.find(|c: char| !(c.is_ascii_alphanumeric() || "-.".contains(c))) {
            return Err((
                off,
                "a host is a DNS name or an address (letters, digits, `-` and `.`)",
            ));
        }
        if host.is_empty() || host.starts_with(['-', '.']) {
            return Err((0, "the URL names no host"));
        }
    }
    match &a[port_at..] {
        "" => Ok(()),
        p => match p.strip_prefix(':').map(str::parse::<u16>) {
            Some(Ok(n)) if n > 0 => Ok(()),
            _ => Err((port_at, "a port is `:` and a number from 1 to 65535")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::ProvisioningUrl;

    #[test]
    fn forms_accepted_and_refused_where_they_go_wrong() {
        for ok in [
            "http://10.0.0.5/ztp/",
            "https://ztp.example.net:8443/site-a",
            "http://[2001:db8::5]:8080",
        ] {
            assert!(ProvisioningUrl::parse(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            ProvisioningUrl::parse("http://10.0.0.5/ztp/").map(|u| u.join("a/b")),
            Ok("http://10.0.0.5/ztp/a/b".to_owned())
        );
        for (bad, at) in [
            ("ftp://h/", 0),
            ("http://", 7),
            ("http://user@h/", 11),
            ("http://h:0/", 8),
            ("http://h/a?b", 10),
            ("http://h/$(reboot)", 9),
            ("http://h/a b", 10),
            ("http://h\n/", 8),
        ] {
            let e = ProvisioningUrl::parse(bad).expect_err(bad);
            assert_eq!(e.span.start, at, "{bad}: {}", e.message);
        }
    }
}
