//! Cumulus PTM's topology file, one per Cumulus Linux switch (`ptm/<switch>/topology.dot`, to be
//! installed as `/etc/ptm.d/topology.dot`). `ptmd` runs on Cumulus Linux, and only there:
//! SONiC, EOS and FRR on Linux have no PTM, so only NVUE switches get a file.
//!
//! The format is CumulusNetworks/ptm's `topology.dot.sample`
//! (CumulusNetworks/ptm@84f578393e5d6b47c802a102af95e8862f0b2d43): graph-level defaults
//! `LLDP=""` and `BFD=""`, then one edge `"switch":"port" -- "peer":"port"` per cable, with
//! per-edge attributes where a cable differs from the defaults. `ptmd` reads the graph with
//! Graphviz's cgraph, finds the node named as its host name and checks LLDP on every edge of it
//! (`src/ptm_conf.c`, `ptm_conf_parse_graph`); the LLDP default `match_type` is `ifname`
//! (`src/ptm_lldp.c`), which matches the port names Cumulus Linux and Linux hosts announce.
//! Empty `BFD` leaves BFD to FRR, where railyard configures it. Each file holds only the
//! switch's own cables (every tier, management included, in cabling-plan order), so a miscabled
//! neighbour shows on both ends.

use std::collections::BTreeMap;

use super::ExportError;
use super::dot::Graph;
use crate::output::{OutputFile, OutputGroup, path};
use crate::topology::Fabric;

/// The platform that runs `ptmd`.
const CUMULUS: &str = "nvue";

pub(super) fn files(f: &Fabric) -> Result<Vec<OutputFile>, ExportError> {
    let cumulus: BTreeMap<&str, Vec<usize>> = f
        .devices()
        .filter(|d| d.platform.is_some_and(|p| p.as_str() == CUMULUS))
        .map(|d| (d.name.as_str(), Vec::new()))
        .collect();
    let mut edges = cumulus;
    let mut ends = Vec::with_capacity(f.link_count());
    for (i, l) in f.links().enumerate() {
        let (a, b) = (f.named(&l.a), f.named(&l.b));
        for d in [a.device.name.as_str(), b.device.name.as_str()] {
            if let Some(v) = edges.get_mut(d) {
                v.push(i);
            }
        }
        ends.push((
            (a.device.name.as_str(), a.port_name),
            (b.device.name.as_str(), b.port_name),
        ));
    }
    let mut out = Vec::with_capacity(edges.len());
    for (switch, links) in edges {
        let file = format!("ptm/{switch}/topology.dot");
        path::check(&file).map_err(|e| ExportError::new(&file, e.to_string()))?;
        let mut g = Graph::new(
            switch,
            &[format!(
                "Cumulus PTM topology of {switch} (railyard export ptm): install as /etc/ptm.d/topology.dot"
            )],
        );
        g.attr("LLDP", "");
        g.attr("BFD", "");
        for i in links {
            let ((a, ap), (b, bp)) = &ends[i];
            g.edge((a, ap), (b, bp), &[]);
        }
        out.push(OutputFile::new(OutputGroup::Plan, file, g.finish()));
    }
    Ok(out)
}
