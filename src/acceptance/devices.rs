//! Node ports whose RDMA device the node model does not name. `ib_write_bw` without `-d` takes
//! the first HCA it finds (perftest README: "-d, --ib-dev=<dev> Use IB device <dev> (default
//! first device found)"), one port for every test of the node, not the cable the test is meant
//! to cross. So the plan never leaves `-d` out: such a port's tests carry [`NO_DEVICE`], the
//! runners refuse a test that carries it (saying why), and planning warns at the node model.

use std::collections::BTreeMap;

use super::model::{Endpoint, Plan};
use crate::design::Design;
use crate::diag::{Diagnostic, Diagnostics, codes};

/// The `-d` value of a port without an RDMA device: no kernel RDMA device is named so (it holds
/// upper-case letters, which `mlx5_*`, `ibp*` and `rocep*` never do), and the runners refuse any
/// test whose command holds it.
pub const NO_DEVICE: &str = "RAILYARD-NO-RDMA-DEVICE";

/// The node ports without an RDMA device, by node port name (as `cabling.csv` names them), with
/// how many link tests each takes part in.
pub fn without_device(plan: &Plan) -> BTreeMap<String, usize> {
    let port_of: BTreeMap<&str, &str> = plan
        .links
        .iter()
        .map(|l| (l.id.as_str(), l.a_port.as_str()))
        .collect();
    let name = |e: &Endpoint| {
        port_of
            .get(e.link.as_str())
            .map_or(e.link.clone(), |p| (*p).into())
    };
    let mut out: BTreeMap<String, usize> = BTreeMap::new();
    for l in &plan.leaves {
        for e in l.ports.iter().filter(|e| e.device.is_none()) {
            out.entry(name(e)).or_default();
        }
    }
    for t in plan.rounds.iter().flat_map(|r| &r.tests) {
        for e in [&t.server, &t.client] {
            if e.device.is_none() {
                *out.entry(name(e)).or_default() += 1;
            }
        }
    }
    out
}

/// Tests with an end on a port without an RDMA device.
pub fn tests_without_device(plan: &Plan) -> usize {
    plan.rounds
        .iter()
        .flat_map(|r| &r.tests)
        .filter(|t| t.server.device.is_none() || t.client.device.is_none())
        .count()
}

/// The plan's warnings, located in the spec: RY0910 at the node model when a port has no RDMA
/// device.
pub fn diagnostics(design: &Design, plan: &Plan) -> Diagnostics {
    let mut d = Diagnostics::default();
    let ports = without_device(plan);
    if ports.is_empty() {
        return d;
    }
    let model = &design.spec.scalable_units.node_model;
    let names: Vec<&str> = ports.keys().map(String::as_str).collect();
    d.push(
        Diagnostic::warning(
            codes::NO_RDMA_DEVICE,
            format!(
                "node model `{}` names no RDMA device for compute port(s) {}: {} of {} link tests \
                 carry `-d {NO_DEVICE}` and the runners refuse them",
                model.value,
                names.join(", "),
                tests_without_device(plan),
                plan.schedule.tests
            ),
        )
        .at(model.span, "node model without RDMA device names")
        .help(
            "declare `rdma:` (what `ibdev2netdev` prints on one node, e.g. `mlx5_0`) for each \
             compute NIC of the model under `catalog: nodes:` and plan again \
             (`railyard explain RY0910`)",
        ),
    );
    d
}
