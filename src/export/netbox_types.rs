//! NetBox names of the plan's hardware: device types as netbox-community/devicetype-library
//! names them (manufacturer, model, slug), and NetBox's interface types.
//!
//! Library entries checked (netbox-community/devicetype-library):
//! `device-types/Mellanox/SN4600C.yml` (@84d8e4e1395aa9839aa42df74dc4647fdd50664c: manufacturer
//! `Mellanox`, model `SN4600C`, slug `sn4600c`) and `device-types/Mellanox/SN2201.yml`
//! (@c516504ff3d2f0f34bce40188c2442bf82f51176: `Mellanox`, `SN2201`, `mellanox-sn2201`). Models
//! the library does not hold (SN5600, SN5400, QM9700, 7060X6-64PE, the DGX and XE9680 servers
//! were not found there) are named after the catalog: its vendor, the model key upper-cased,
//! and the library's current slug form `<manufacturer>-<model>`.
//!
//! Interface types are values of `InterfaceTypeChoices` (netbox-community/netbox
//! `netbox/dcim/choices.py`), chosen by the port's rate and its cage's form factor.

use crate::model::{Form, Speed};

/// Catalog key → (manufacturer, model, slug) of the library.
const LIBRARY: [(&str, &str, &str, &str); 2] = [
    ("sn4600c", "Mellanox", "SN4600C", "sn4600c"),
    ("sn2201", "Mellanox", "SN2201", "mellanox-sn2201"),
];

pub(super) struct DeviceType {
    pub manufacturer: String,
    pub model: String,
    pub slug: String,
}

/// The NetBox device type of catalog model `key` from `vendor`.
pub(super) fn device_type(key: &str, vendor: &str) -> DeviceType {
    if let Some((_, m, model, s)) = LIBRARY.iter().find(|(k, ..)| *k == key) {
        return DeviceType {
            manufacturer: (*m).into(),
            model: (*model).into(),
            slug: (*s).into(),
        };
    }
    let model = key.to_uppercase();
    DeviceType {
        slug: slug(&format!("{vendor}-{model}")),
        manufacturer: vendor.to_string(),
        model,
    }
}

/// The longest slug NetBox stores: `slug = models.SlugField(max_length=100, ...)` of its
/// `OrganizationalModel` and `NestedGroupModel` (netbox-community/netbox,
/// `netbox/netbox/models/__init__.py`).
const SLUG_MAX: usize = 100;

/// A NetBox slug: what Django's `validate_slug` accepts (`^[-a-zA-Z0-9_]+\Z`, the validator of
/// every `SlugField`), at most [`SLUG_MAX`] characters, in lower case; anything else becomes `-`,
/// a run of them one `-`. A slug never begins or ends with `-` (as Django's `slugify` strips it):
/// a leading `-` is a formula start to a spreadsheet, so the CSV writer would prefix it with `'`,
/// which NetBox's slug rule refuses. A text with no letter or digit at all (or one cut to the
/// limit) ends in a digest of the whole text, so two such texts do not share a slug.
pub(super) fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(SLUG_MAX));
    for c in s.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let kept = out.trim_end_matches('-');
    if !kept.is_empty() && kept.len() <= SLUG_MAX {
        return kept.to_string();
    }
    // 12 hex digits of the SHA-256 of the text, after as much of it as fits.
    let digest = &crate::output::digest::sha256_hex(s.as_bytes())[..12];
    let head = kept[..kept.len().min(SLUG_MAX - 13)].trim_end_matches('-');
    if head.is_empty() {
        format!("x-{digest}")
    } else {
        format!("{head}-{digest}")
    }
}

/// The interface type of a port running at `speed` in a cage of `form` (`None`: a NIC or a
/// management port), on InfiniBand or Ethernet.
pub(super) fn interface_type(
    speed: Speed,
    form: Option<Form>,
    ib: bool,
    mgmt: bool,
) -> &'static str {
    let g = speed.as_gbps();
    if mgmt {
        return "1000base-t";
    }
    if ib {
        return match g {
            800 => "infiniband-xdr",
            400 => "infiniband-ndr",
            200 => "infiniband-hdr",
            100 => "infiniband-edr",
            _ => "other",
        };
    }
    match (g, form) {
        (800, _) => "800gbase-x-osfp",
        (400, Some(Form::QsfpDd)) => "400gbase-x-qsfpdd",
        (400, Some(Form::Qsfp112) | None) => "400gbase-x-qsfp112",
        (400, _) => "400gbase-x-osfp",
        (200, Some(Form::QsfpDd)) => "200gbase-x-qsfpdd",
        (200, _) => "200gbase-x-qsfp56",
        (100, _) => "100gbase-x-qsfp28",
        (50, _) => "50gbase-x-sfp56",
        (25, _) => "25gbase-x-sfp28",
        (10, _) => "10gbase-x-sfpp",
        (1, _) => "1000base-t",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names_first_then_the_catalogs() {
        let t = device_type("sn2201", "NVIDIA");
        assert_eq!(
            (t.manufacturer.as_str(), t.model.as_str(), t.slug.as_str()),
            ("Mellanox", "SN2201", "mellanox-sn2201")
        );
        let t = device_type("sn5600", "NVIDIA");
        assert_eq!(
            (t.manufacturer.as_str(), t.model.as_str(), t.slug.as_str()),
            ("NVIDIA", "SN5600", "nvidia-sn5600")
        );
        assert_eq!(
            interface_type(Speed::gbps(400), Some(Form::Osfp), false, false),
            "400gbase-x-osfp"
        );
        assert_eq!(
            interface_type(Speed::gbps(400), None, true, false),
            "infiniband-ndr"
        );
    }

    /// Every slug matches Django's `validate_slug` (`^[-a-zA-Z0-9_]+\Z`), fits NetBox's
    /// `max_length=100`, and never begins with `-` (which the CSV writer would quote with `'`).
    #[test]
    fn slugs_follow_netboxs_rule_whatever_the_text() {
        let long = "a".repeat(300);
        let texts = [
            "-leading",
            "=cmd|' /C calc'!A0",
            "gpu;=cmd",
            "'quoted",
            "§±",
            "",
            "Site Name",
            long.as_str(),
            "_under",
        ];
        for text in texts {
            let s = slug(text);
            assert!(
                !s.is_empty()
                    && s.len() <= 100
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                    && !s.starts_with('-')
                    && !s.ends_with('-'),
                "{text:?} -> {s:?}"
            );
            assert_eq!(crate::output::csv::cell(&s), s, "{text:?}");
        }
        assert_eq!(slug("Site Name"), "site-name");
        assert_eq!(slug("-leading"), "leading");
        assert_eq!(slug("gpu;=cmd"), "gpu-cmd");
        assert_ne!(slug("§"), slug("±"));
    }
}
