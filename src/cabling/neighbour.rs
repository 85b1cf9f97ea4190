//! One neighbour entry, as every capture format yields it.

/// One neighbour entry as the device reported it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Neighbour {
    pub local_port: String,
    pub remote_device: String,
    pub remote_port: String,
}

/// The port to compare with the plan: the port id when it is an interface name (or locally
/// assigned), else the port description (Linux hosts send a MAC as port id and the interface name
/// as description), else whatever the id is. Inputs are trimmed and non-empty.
pub(super) fn pick_port(
    id_type: Option<&str>,
    id_value: Option<String>,
    descr: Option<String>,
) -> Option<String> {
    let by_name = matches!(id_type, None | Some("ifname" | "local"));
    if by_name && id_value.is_some() {
        return id_value;
    }
    descr.or(id_value)
}
