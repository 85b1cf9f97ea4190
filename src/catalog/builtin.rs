use std::sync::OnceLock;

use super::Catalog;

const SWITCHES: &str = include_str!("../../catalog/switches.yaml");
const NODES: &str = include_str!("../../catalog/nodes.yaml");
const PHYSICAL: &str = include_str!("../../catalog/physical.yaml");
const PHYSICAL_ACCESS: &str = include_str!("../../catalog/physical-access.yaml");
const PHYSICAL_GENERIC: &str = include_str!("../../catalog/physical-generic.yaml");
const PHYSICAL_XDR: &str = include_str!("../../catalog/physical-xdr.yaml");

/// The catalog shipped inside the binary. Parsed once; a broken built-in file is a bug caught by
/// the catalog tests, so it panics with the parser's message rather than returning a diagnostic.
pub fn builtin() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let switches: Catalog =
            serde_saphyr::from_str(SWITCHES).expect("catalog/switches.yaml is valid");
        let nodes: Catalog = serde_saphyr::from_str(NODES).expect("catalog/nodes.yaml is valid");
        let physical: Catalog =
            serde_saphyr::from_str(PHYSICAL).expect("catalog/physical.yaml is valid");
        let access: Catalog =
            serde_saphyr::from_str(PHYSICAL_ACCESS).expect("catalog/physical-access.yaml is valid");
        let generic: Catalog = serde_saphyr::from_str(PHYSICAL_GENERIC)
            .expect("catalog/physical-generic.yaml is valid");
        let xdr: Catalog =
            serde_saphyr::from_str(PHYSICAL_XDR).expect("catalog/physical-xdr.yaml is valid");
        switches
            .extended_with(&nodes)
            .extended_with(&physical)
            .extended_with(&access)
            .extended_with(&generic)
            .extended_with(&xdr)
    })
}
