//! A file path as a relative URI reference (RFC 3986, section 4.2), as SARIF's
//! `artifactLocation.uri` names a file (SARIF 2.1.0, section 3.4.3: a URI reference; a relative one
//! is resolved against the repository root by code scanning). Every byte outside the unreserved
//! characters and `/` is percent-encoded, so a space, `#`, `?` or `%` in a file name is data, not
//! a fragment or query.

/// `path` as a relative URI reference (`\` as `/`, a leading `./` dropped).
pub fn reference(path: &str) -> String {
    let path = path.replace('\\', "/");
    let path = path.strip_prefix("./").unwrap_or(&path);
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn reserved_characters_are_data() {
        assert_eq!(
            super::reference("./specs/a b#1%.yaml"),
            "specs/a%20b%231%25.yaml"
        );
        assert_eq!(super::reference("é"), "%C3%A9");
    }
}
