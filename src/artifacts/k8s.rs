//! The Kubernetes grammars the scheduler files write names in (Kubernetes documentation, "Object
//! Names and IDs" and "Labels and Selectors"; `k8s.io/apimachinery/pkg/util/validation`), one
//! function per grammar:
//!
//! - [`dns_label`]: an object name railyard chooses (a Kueue `Topology` or `ResourceFlavor`), an
//!   RFC 1123 label: at most 63 characters of `[a-z0-9-]`, alphanumeric at both ends;
//! - [`label_value`]: a label value: at most 63 characters of `[A-Za-z0-9._-]`, alphanumeric at
//!   both ends;
//! - [`node_name`]: a node's name, an RFC 1123 subdomain (at most 253 characters of
//!   `[a-z0-9.-]`, dot-separated labels), as the kubelet registers it;
//! - [`label_key`]: `prefix/name`, the prefix an RFC 1123 subdomain, the name a label name.
//!
//! Names from the spec (the cluster's, a tenant's) are free text. A text that already fits the
//! grammar is used as it is; any other is mapped into it (every other character becomes `-`,
//! lowercase where the grammar wants it), shortened to leave room, and given `-` and 8 hex
//! digits of the SHA-256 of the whole text, so two texts that differ never silently become the
//! same name (the callers also refuse a repeat). A name that cannot be mapped (a node's, which
//! must equal the node's real name; a label key the user chose) is an error instead.

use crate::output::digest::sha256_hex;

/// The longest RFC 1123 label, label value and label name.
pub(crate) const MAX_LABEL: usize = 63;
/// The longest RFC 1123 subdomain.
const MAX_SUBDOMAIN: usize = 253;
/// Hex digits of the hash a mapped name ends with.
const HASH_DIGITS: usize = 8;

fn alnum_ends(s: &str, alnum: fn(char) -> bool) -> bool {
    s.starts_with(alnum) && s.ends_with(alnum)
}

fn lower_alnum(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
pub(crate) fn is_dns_label(s: &str) -> bool {
    s.len() <= MAX_LABEL
        && alnum_ends(s, lower_alnum)
        && s.chars().all(|c| lower_alnum(c) || c == '-')
}

/// RFC 1123 labels joined by `.`, at most 253 characters.
pub(crate) fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= MAX_SUBDOMAIN && s.split('.').all(is_dns_label)
}

/// `(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?`, at most 63 characters.
pub(crate) fn is_label_value(s: &str) -> bool {
    s.is_empty() || is_label_name(s)
}

/// A label value that is not empty: the name part of a label key.
fn is_label_name(s: &str) -> bool {
    let alnum = |c: char| c.is_ascii_alphanumeric();
    s.len() <= MAX_LABEL
        && alnum_ends(s, alnum)
        && s.chars().all(|c| alnum(c) || matches!(c, '-' | '_' | '.'))
}

/// `text` mapped into a grammar that `fits` and whose characters `keep` allows (after `case`):
/// as it is when it fits, else mapped, shortened and hashed (see the module doc).
fn derive(
    text: &str,
    fits: fn(&str) -> bool,
    case: fn(char) -> char,
    keep: fn(char) -> bool,
) -> String {
    if fits(text) {
        return text.to_string();
    }
    let hash = &sha256_hex(text.as_bytes())[..HASH_DIGITS];
    let mapped: String = text
        .chars()
        .map(case)
        .map(|c| if keep(c) { c } else { '-' })
        .take(MAX_LABEL - HASH_DIGITS - 1)
        .collect();
    let stem = mapped.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    if stem.is_empty() {
        hash.to_string()
    } else {
        format!("{stem}-{hash}")
    }
}

/// An object name railyard derives from `text`: an RFC 1123 label.
pub(crate) fn dns_label(text: &str) -> String {
    derive(
        text,
        is_dns_label,
        |c| c.to_ascii_lowercase(),
        |c| lower_alnum(c) || c == '-',
    )
}

/// A label value from `text`.
pub(crate) fn label_value(text: &str) -> String {
    derive(
        text,
        is_label_value,
        |c| c,
        |c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'),
    )
}

/// What a mapped name stands for, as a comment line for the file that uses it (nothing when
/// the name is the text itself).
pub(crate) fn mapped_note(what: &str, name: &str, text: &str) -> String {
    if name == text {
        return String::new();
    }
    let text = super::printed::one_line(text);
    format!(
        "# `{name}` stands for {what} `{text}`: Kubernetes names are at most {MAX_LABEL} \
         characters of a narrow alphabet, so the name was mapped into it and ends with \
         {HASH_DIGITS} hex digits of the SHA-256 of the full name.\n"
    )
}

/// The Kubernetes name of node `name`: lowercase, as the kubelet registers a host name, and an
/// RFC 1123 subdomain, else an error (a node cannot be renamed here).
pub(crate) fn node_name(name: &str) -> Result<String, String> {
    let lower = name.to_ascii_lowercase();
    if is_dns_subdomain(&lower) {
        Ok(lower)
    } else {
        Err(format!(
            "node `{}` is not a Kubernetes node name (lowercase letters, digits, `-` and `.`, \
             alphanumeric at both ends of each dot-separated part, at most {MAX_SUBDOMAIN} \
             characters)",
            name.escape_default()
        ))
    }
}

/// The label key `prefix/name`, else an error naming the rule the prefix breaks.
pub(crate) fn label_key(prefix: &str, name: &str) -> Result<String, String> {
    if !is_dns_subdomain(prefix) {
        return Err(format!(
            "the label prefix `{}` (scheduler.label_prefix) is not a DNS subdomain (lowercase \
             letters, digits, `-` and `.`, at most {MAX_SUBDOMAIN} characters)",
            prefix.escape_default()
        ));
    }
    if !is_label_name(name) {
        return Err(format!("`{}` is not a label name", name.escape_default()));
    }
    Ok(format!("{prefix}/{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_fit_stay_as_they_are() {
        assert_eq!(dns_label("spx-cloud"), "spx-cloud");
        assert_eq!(label_value("Tenant_A.1"), "Tenant_A.1");
        assert_eq!(node_name("dgx-su01-n01").unwrap(), "dgx-su01-n01");
        assert_eq!(node_name("GPU01").unwrap(), "gpu01");
        assert_eq!(
            label_key("topology.railyard.dev", "su").unwrap(),
            "topology.railyard.dev/su"
        );
    }

    #[test]
    fn other_names_are_mapped_with_a_hash_of_the_whole_text() {
        let a = dns_label("My_Cluster!");
        assert!(a.starts_with("my-cluster-") && is_dns_label(&a), "{a}");
        // Texts that map to the same characters still differ by their hash.
        assert_ne!(dns_label("My_Cluster?"), a);
        let long_a = format!("{}a", "x".repeat(200));
        let long_b = format!("{}b", "x".repeat(200));
        assert_ne!(label_value(&long_a), label_value(&long_b));
        assert!(is_label_value(&label_value(&long_a)));
        assert_eq!(label_value(&long_a).len(), MAX_LABEL);
        assert_eq!(dns_label("__").len(), HASH_DIGITS);
        assert!(is_dns_label(&dns_label("-")));
        assert!(mapped_note("cluster", &a, "My_Cluster!").contains("`My_Cluster!`"));
        assert_eq!(mapped_note("cluster", "x", "x"), "");
    }

    #[test]
    fn names_that_cannot_be_mapped_are_errors() {
        assert!(node_name("gpu 01").is_err());
        assert!(node_name(&"a".repeat(254)).is_err());
        assert!(node_name("-gpu").is_err());
        assert!(label_key("Not_A_Domain", "su").is_err());
        assert!(label_key("a.b", "-x").is_err());
    }
}
