//! Scheduler topology: the compute fabric as Slurm and Kubernetes/Kueue see it (Slurm topology
//! documentation), written from the one tree `topology` reduces the fabric to
//! ([`crate::topology::SchedulerTree`]), so topology.conf, topology.yaml and the Kueue labels
//! cannot disagree. Outputs:
//! - `scheduler/slurm/topology.conf` — topology/tree (Slurm topology.conf documentation);
//! - `scheduler/slurm/topology.yaml` — Slurm ≥ 25.05: the same tree plus a block topology (§7.2);
//! - `scheduler/kueue/topology.yaml`, `node-labels.yaml`, `label-nodes.sh` — Kueue TAS (§7.3).

pub(crate) mod hostlist;
mod kueue;
mod slurm;
mod slurm_block;
mod topograph;

use crate::design::Design;
use crate::output::OutputFile;

use crate::output::FileError;

pub fn files(design: &Design) -> Result<Vec<OutputFile>, FileError> {
    let tree = &design.scheduler;
    let mut out = slurm::files(tree)?;
    out.extend(kueue::files(tree, &design.spec.scheduler.label_prefix)?);
    Ok(out)
}
