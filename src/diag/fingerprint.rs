//! A diagnostic's fingerprint: what a CI baseline records as "accepted", so it must stay the same
//! while the design grows and the spec is edited around the finding, and change when the finding
//! is a different one.
//!
//! It is the first 16 hex digits of the SHA-256 of four fields joined by NUL:
//!
//! 1. the code (`RY0501`);
//! 2. the file as the command line named it (`./` removed, `\` as `/`): two specs with the same
//!    finding have two fingerprints;
//! 3. where in the file: the spec's key path at the diagnostic (`fabrics.compute.leaf.model`,
//!    list items by their `name`, else by index), or for a file that is not a spec (an identity
//!    CSV) the text of the line, normalised as the message is; never the line or column number,
//!    which move when a line is added above;
//! 4. the message with every free-standing number replaced by `#`: "112 of 128 ports unused on
//!    2 leaf switch(es)" and "240 of 256 ports unused on 4 leaf switch(es)" are one finding of a
//!    grown design. Digits inside a name (`sn4600c`, `leaf-su1-r3`, `400G`) are part of it and kept:
//!    a run of digits counts as a number unless a letter, `-` or `_` is right before it or a letter
//!    right after it.
//!
//! The severity is not hashed: `--deny` or `--strict` do not change what was accepted.

use sha2::{Digest, Sha256};

/// The fingerprint of a finding (module documentation).
pub fn fingerprint(code: &str, file: &str, place: &str, message: &str) -> String {
    let file = file_name(file);
    let mut hash = Sha256::new();
    for (i, part) in [code, &file, &stable(place), &stable(message)]
        .iter()
        .enumerate()
    {
        if i > 0 {
            hash.update([0]);
        }
        hash.update(part.as_bytes());
    }
    hash.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A file as a fingerprint (and a baseline) names it: `./` removed, `\` as `/`.
pub fn file_name(file: &str) -> String {
    file.strip_prefix("./").unwrap_or(file).replace('\\', "/")
}

/// `text` with each free-standing number (module documentation) replaced by `#`.
pub fn stable(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let before = start
            .checked_sub(1)
            .and_then(|b| chars.get(b))
            .is_some_and(|c| c.is_alphabetic() || *c == '-' || *c == '_');
        let after = chars.get(i).is_some_and(|c| c.is_alphabetic());
        if before || after {
            out.extend(&chars[start..i]);
        } else {
            out.push('#');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{fingerprint, stable};

    #[test]
    fn counts_are_not_the_finding_names_are() {
        assert_eq!(
            stable("112 of 128 ports unused on 2 leaf switch(es) (`sn4600c`)"),
            "# of # ports unused on # leaf switch(es) (`sn4600c`)"
        );
        assert_eq!(
            stable("leaf-su12-r3 at 400G, 10.0.0.0/8"),
            "leaf-su12-r3 at 400G, #.#.#.#/#"
        );
        let a = fingerprint(
            "RY0501",
            "./a.yaml",
            "fabrics.compute.leaf.model",
            "112 of 128",
        );
        let b = fingerprint(
            "RY0501",
            "a.yaml",
            "fabrics.compute.leaf.model",
            "240 of 256",
        );
        assert_eq!(a, b);
        assert_eq!(a.len(), 16);
        assert_ne!(
            a,
            fingerprint("RY0501", "b.yaml", "fabrics.compute.leaf.model", "1")
        );
        assert_ne!(
            a,
            fingerprint("RY0501", "a.yaml", "fabrics.compute.spine.model", "1")
        );
        assert_ne!(
            a,
            fingerprint("RY0115", "a.yaml", "fabrics.compute.leaf.model", "1")
        );
    }
}
