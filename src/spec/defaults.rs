//! Every default of the spec, in one place.

use super::yaml::Sp;
use crate::model::Transport;

pub fn version() -> Sp<u32> {
    Sp::new(1)
}
pub fn one() -> Sp<u32> {
    Sp::new(1)
}
pub fn transport() -> Transport {
    Transport::Ethernet
}
pub fn ratio() -> Sp<String> {
    Sp::new("1:1".to_string())
}
pub fn ufm_model() -> String {
    "ufm-appliance".to_string()
}
pub fn oob_model() -> Sp<String> {
    Sp::new("sn2201".to_string())
}
pub fn rack_width() -> f64 {
    0.6
}
pub fn row_pitch() -> f64 {
    3.0
}
pub fn slack() -> f64 {
    3.0
}
/// Row-level node-to-leaf runs in a SuperPOD network rack (FACTS §8.1: SR4 multimode ≤ 50 m).
pub fn len_node_leaf() -> f64 {
    10.0
}
/// Leaf-to-spine runs across rows (FACTS §8.1: DR4 single-mode ≤ 100 m).
pub fn len_leaf_spine() -> f64 {
    30.0
}
pub fn len_spine_core() -> f64 {
    50.0
}
pub fn len_mgmt() -> f64 {
    5.0
}

/// Default naming patterns; twin-planar fabrics get the plane in compute switch names.
pub struct Patterns;

impl Patterns {
    pub const NODE: &'static str = "gpu{node:03}";
    pub const FABRIC_MANAGER: &'static str = "ufm{index:02}";
    pub const STORAGE_LEAF: &'static str = "stor-leaf{index:02}";
    pub const STORAGE_SPINE: &'static str = "stor-spine{index:02}";
    pub const INBAND_LEAF: &'static str = "inb-leaf{index:02}";
    pub const INBAND_SPINE: &'static str = "inb-spine{index:02}";
    pub const OOB: &'static str = "oob-su{su:02}-{index:02}";
    pub const OOB_CORE: &'static str = "oob-core{index:02}";

    pub fn leaf(planes: u32) -> &'static str {
        if planes > 1 {
            "leaf-p{plane}-su{su:02}-{leaf:02}"
        } else {
            "leaf-su{su:02}-{leaf:02}"
        }
    }

    pub fn spine(planes: u32, three_tier: bool) -> &'static str {
        match (planes > 1, three_tier) {
            (false, false) => "spine{index:02}",
            (true, false) => "spine-p{plane}-{index:02}",
            (false, true) => "spine-g{group:02}-{index:02}",
            (true, true) => "spine-p{plane}-g{group:02}-{index:02}",
        }
    }

    pub fn core(planes: u32) -> &'static str {
        if planes > 1 {
            "core-p{plane}-{index:02}"
        } else {
            "core{index:02}"
        }
    }
}
