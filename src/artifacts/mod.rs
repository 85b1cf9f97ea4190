//! Documents derived from the design — cabling plan, port maps, address plan, BOM, plan,
//! summary, host and scheduler files. Pure: returns file contents; the CLI writes them. A file
//! that cannot be written is an [`FileError`] naming it, never an empty or missing file.
//!
//! This file is the orchestrator only: what each group renders and what renders beside what.
//! The report (`crate::report`) is a stage of its own that reads these CSV files back; the
//! pipeline (`lib.rs`) runs the two side by side.

mod addresses;
mod bom;
mod bom_excluded;
mod cabling;
mod hosts;
mod k8s;
mod names;
mod plan;
mod portmap;
mod printed;
mod scheduler;
pub mod summary;

use crate::design::Design;
use crate::output::{FileError, InFile};
use crate::output::{OutputFile, OutputGroup, Selection, Sink};
pub use names::{BuildNames, LinkNames};

/// `netbox-cables.csv`, alone: the NetBox export (`export::netbox`) imports the same cables,
/// with the media and lengths of the design's physical solution.
pub fn netbox_cables(design: &Design) -> Result<OutputFile, FileError> {
    let names = LinkNames::new(&design.fabric, &design.physical);
    cabling::netbox_csv(&design.fabric, &names)
}

/// The plan, host and scheduler files, the NetBox import and the summary of the selected groups
/// into `put`: nothing the report reads, so it renders beside the report from the start.
pub fn emit(
    design: &Design,
    only: &Selection,
    names: &LinkNames,
    put: &Sink<'_>,
) -> Result<(), FileError> {
    let f = &design.fabric;
    let (plan_and_hosts, netbox_and_summary) = crate::parallel::join(
        || {
            if only.has(OutputGroup::Plan) {
                put(plan::plan_json(f, names)?);
            }
            if only.has(OutputGroup::Hosts) {
                scheduler::files(design)?.into_iter().for_each(put);
                hosts::files(design)?.into_iter().for_each(put);
            }
            Ok(())
        },
        || {
            if only.has(OutputGroup::Cabling) {
                put(cabling::netbox_csv(f, names)?);
            }
            if only.has(OutputGroup::Plan) {
                let summary = summary::summarize_with(f, &design.intents.tenants);
                put(OutputFile::new(
                    OutputGroup::Plan,
                    "summary.json",
                    summary::to_json(&summary).in_file("summary.json")?,
                ));
            }
            Ok(())
        },
    );
    plan_and_hosts.and(netbox_and_summary)
}

/// The CSV files the report reads back (cabling plan, BOM, optics power, port maps, address
/// plan), when a selected group writes them or the report needs them.
pub fn sources(
    design: &Design,
    only: &Selection,
    names: &LinkNames,
) -> Result<Vec<OutputFile>, FileError> {
    let (f, alloc) = (&design.fabric, &design.allocation);
    let report = only.has(OutputGroup::Report);
    let cabling = only.has(OutputGroup::Cabling) || report;
    let addresses = only.has(OutputGroup::Addresses) || report;
    let (maps, sources) = crate::parallel::join(
        || {
            let mut v = Vec::new();
            if cabling {
                v = portmap::port_maps(f, names)?;
            }
            if addresses {
                v.push(addresses::addresses_csv(f, alloc, names)?);
            }
            Ok::<_, FileError>(v)
        },
        || {
            if cabling {
                Ok(vec![
                    cabling::cabling_csv(f, names)?,
                    bom::bom_csv(f, &design.physical)?,
                    bom_excluded::not_included_csv()?,
                    bom::optics_power_csv(f, &design.physical)?,
                ])
            } else {
                Ok(Vec::new())
            }
        },
    );
    let mut sources = sources?;
    sources.extend(maps?);
    Ok(sources)
}

/// Only what the report reads (`railyard report` writes the report alone): port maps, address
/// plan, cabling plan and BOM.
pub fn report_sources(design: &Design, names: &LinkNames) -> Result<Vec<OutputFile>, FileError> {
    let (f, alloc) = (&design.fabric, &design.allocation);
    let mut sources = portmap::port_maps(f, names)?;
    sources.push(addresses::addresses_csv(f, alloc, names)?);
    sources.push(cabling::cabling_csv(f, names)?);
    sources.push(bom::bom_csv(f, &design.physical)?);
    Ok(sources)
}

/// The variables of `hosts/nccl.json`, as the host files render them (the acceptance plan's
/// NCCL environment); empty when the cluster has no GPU nodes.
pub fn nccl_env(design: &Design) -> Result<std::collections::BTreeMap<String, String>, FileError> {
    hosts::nccl_env(design)
}
