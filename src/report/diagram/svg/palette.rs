//! Colours of the drawing: networks, rails and unit roles.

use crate::model::Network;

/// Network colours (lines and frames).
pub fn network_colour(n: Network) -> &'static str {
    match n {
        Network::Compute => "#2563eb",
        Network::Storage => "#d97706",
        Network::Inband => "#059669",
        Network::Oob => "#6b7280",
    }
}

pub fn network_fill(n: Network) -> &'static str {
    match n {
        Network::Compute => "#eff6ff",
        Network::Storage => "#fffbeb",
        Network::Inband => "#ecfdf5",
        Network::Oob => "#f3f4f6",
    }
}

/// Sixteen distinguishable rail colours (rail 1 first), repeated beyond 16.
const RAILS: [&str; 16] = [
    "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#0fa3b1", "#f032e6", "#9a6324",
    "#469990", "#800000", "#808000", "#000075", "#7fb800", "#d96c96", "#8c7ae6", "#2f4f4f",
];

pub fn rail_colour(r: u32) -> &'static str {
    RAILS[(r.max(1) as usize - 1) % RAILS.len()]
}

pub fn unit_fill(role: &str) -> &'static str {
    match role {
        "leaf" => "#dbeafe",
        "spine" => "#bfdbfe",
        "core" => "#93c5fd",
        "node" => "#f9fafb",
        "appliance" => "#fae8ff",
        "storage-leaf" | "storage-spine" => "#fef3c7",
        "inband-leaf" | "inband-spine" => "#d1fae5",
        "oob-leaf" | "oob-core" => "#e5e7eb",
        _ => "#ffffff",
    }
}
