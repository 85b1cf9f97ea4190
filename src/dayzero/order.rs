//! The provisioning order (`dayzero/provisioning-order.csv`): a switch can fetch its ZTP files
//! only once every switch between its management port and the OOB gateway forwards its VLAN, so
//! switches come up in waves by hop distance from the gateway over the management cabling (OOB
//! uplinks, then management ports). The gateway is wave 0 (provisioned by hand: it routes the
//! management subnets); NVIDIA Config Manager documents the same rule ("OOB → mgmt core → mgmt
//! spine → mgmt leaf → rest", docs/network-topology-requirements in
//! https://github.com/dsx-ai-factory/nv-config-manager).

use std::collections::{BTreeMap, VecDeque};

use crate::model::{Role, Tier};
use crate::output::csv::{Column, Writer};
use crate::output::{FileError, InFile, OutputFile, OutputGroup};
use crate::topology::Fabric;

pub const PATH: &str = "dayzero/provisioning-order.csv";

const COLUMNS: [Column; 4] = [
    Column::text("wave"),
    Column::text("device"),
    Column::text("role"),
    Column::text("via"),
];

/// Every switch reachable from the OOB gateway over management cabling, with its wave and the
/// switch it is reached through; none without a gateway.
pub fn file(f: &Fabric) -> Result<Option<OutputFile>, FileError> {
    let Some(gateway) = f.devices().find(|d| d.role == Role::OobGateway) else {
        return Ok(None);
    };
    // The management tree as adjacency lists, by device name.
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for l in f
        .links()
        .filter(|l| matches!(l.tier, Tier::Mgmt | Tier::OobUplink))
    {
        let (a, b) = (
            f.device_of(&l.a).name.as_str(),
            f.device_of(&l.b).name.as_str(),
        );
        next.entry(a).or_default().push(b);
        next.entry(b).or_default().push(a);
    }
    let roles: BTreeMap<&str, Role> = f.devices().map(|d| (d.name.as_str(), d.role)).collect();
    let role = |n: &str| roles.get(n).copied();
    let mut wave: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    wave.insert(gateway.name.as_str(), (0, ""));
    let mut queue = VecDeque::from([gateway.name.as_str()]);
    while let Some(at) = queue.pop_front() {
        let w = wave[at].0;
        // Only an OOB switch forwards management traffic on to what hangs off it.
        if !role(at).is_some_and(Role::is_oob) {
            continue;
        }
        let mut near = next.get(at).cloned().unwrap_or_default();
        near.sort_by(|a, b| crate::output::natural::cmp(a, b));
        for n in near {
            if !wave.contains_key(n) {
                wave.insert(n, (w + 1, at));
                queue.push_back(n);
            }
        }
    }
    let mut rows: Vec<(usize, &str, Role, &str)> = wave
        .iter()
        .filter_map(|(n, (w, via))| {
            let r = role(n)?;
            r.is_switch().then_some((*w, *n, r, *via))
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0).then(crate::output::natural::cmp(a.1, b.1)));
    let mut w = Writer::new(&COLUMNS);
    for (wave, device, role, via) in rows {
        w.row([wave.to_string().as_str(), device, role.as_str(), via]);
    }
    Ok(Some(OutputFile::new(
        OutputGroup::Configs,
        PATH,
        w.finish().in_file(PATH)?,
    )))
}
