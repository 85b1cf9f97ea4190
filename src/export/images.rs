//! The image a simulator boots for each network OS (containerlab's `image`, NVIDIA Air's `os`):
//! a documented default per OS (README, "Exports"), overridable per OS from the command line
//! (`railyard export … --image nvue=cumulus-vx-5.11.0`). Keys are the platforms' spec names and
//! `node` (the GPU nodes).
//!
//! Defaults and where they come from:
//! - containerlab (srl-labs/containerlab@39ff2b7c, `docs/manual/kinds/`, `lab-examples/`):
//!   `ceos:4.32.0F` (the name `ceos.md` imports cEOS under), `docker-sonic-vs:latest` (the
//!   `docker-sonic-vs.gz` build artifact `sonic-vs.md` points to, as docker loads it),
//!   `quay.io/frrouting/frr:10.5.1` and `wbitt/network-multitool:3.22.2` (`lab-examples/frr01`);
//!   Cumulus VX has no downloadable container (`nvidia_cumulusvx.md`): the default is the name
//!   srl-labs/vrnetlab gives the image it builds from the qcow2, to be overridden with yours.
//! - NVIDIA Air (CumulusNetworks/docs, `content/nvidia-air-v2/Custom-Topology.md`): the `os`
//!   names of its examples, `cumulus-vx-5.10.1`, `sonic-vs-202305`, `generic/ubuntu2404`
//!   (Air has no EOS or plain FRR image: those switches boot Ubuntu).

use std::collections::BTreeMap;

/// Every key an image can be set for.
pub const IMAGE_KEYS: [&str; 5] = ["nvue", "sonic", "eos", "frr", "node"];

const CLAB: [(&str, &str); 5] = [
    ("nvue", "vrnetlab/nvidia_cumulusvx:5.10.1"),
    ("sonic", "docker-sonic-vs:latest"),
    ("eos", "ceos:4.32.0F"),
    ("frr", "quay.io/frrouting/frr:10.5.1"),
    ("node", "wbitt/network-multitool:3.22.2"),
];

const AIR: [(&str, &str); 5] = [
    ("nvue", "cumulus-vx-5.10.1"),
    ("sonic", "sonic-vs-202305"),
    ("eos", "generic/ubuntu2404"),
    ("frr", "generic/ubuntu2404"),
    ("node", "generic/ubuntu2404"),
];

/// The defaults with the user's overrides.
#[derive(Clone, Debug, Default)]
pub struct Images {
    overrides: BTreeMap<String, String>,
}

impl Images {
    /// Override the image of `key` (`nvue=…`); refused for an unknown key or an image name
    /// outside `[A-Za-z0-9._/:@+-]` (what image references and Air's names use).
    pub fn set(&mut self, key: &str, image: &str) -> Result<(), String> {
        if !IMAGE_KEYS.contains(&key) {
            return Err(format!(
                "no image key `{key}` (one of: {})",
                IMAGE_KEYS.join(", ")
            ));
        }
        let ok = !image.is_empty()
            && image.len() <= 255
            && image.starts_with(|c: char| c.is_ascii_alphanumeric())
            && image
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._/:@+-".contains(c));
        if !ok {
            return Err(format!(
                "image `{}` for `{key}`: 1 to 255 of A-Z a-z 0-9 . _ / : @ + -, starting with a letter or digit",
                image.escape_debug()
            ));
        }
        self.overrides.insert(key.to_string(), image.to_string());
        Ok(())
    }

    /// containerlab's image for `key`.
    pub(super) fn clab(&self, key: &str) -> &str {
        self.pick(&CLAB, key)
    }

    /// NVIDIA Air's `os` for `key`.
    pub(super) fn air(&self, key: &str) -> &str {
        self.pick(&AIR, key)
    }

    fn pick<'a>(&'a self, table: &'a [(&str, &str)], key: &str) -> &'a str {
        self.overrides.get(key).map_or_else(
            || {
                table
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or("", |(_, v)| *v)
            },
            String::as_str,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_a_default_and_overrides_are_checked() {
        let mut i = Images::default();
        for k in IMAGE_KEYS {
            assert!(!i.clab(k).is_empty() && !i.air(k).is_empty(), "{k}");
        }
        i.set("nvue", "cumulus-vx-5.11.0").unwrap();
        assert_eq!(i.air("nvue"), "cumulus-vx-5.11.0");
        assert!(i.set("junos", "x").is_err());
        assert!(i.set("eos", "ceos\"; rm").is_err());
        assert!(i.set("eos", "").is_err());
    }
}
