//! The `hosts/nccl.env` notes of a rack-scale cluster: what NCCL needs to use the NVLink domain
//! between trays (multi-node NVLink, MNNVL), from NVIDIA/nccl at commit
//! 5067397c2676d5aed50042fc39e5c8ee96eb0027 (version 2.30.7). No variable is set: NCCL's defaults
//! (auto) are right when the prerequisites hold, and forcing one turns a missing prerequisite
//! into a failed job.

use crate::design::Design;

const NCCL: &str = "github.com/NVIDIA/nccl commit 5067397c";

/// The notes; none unless the cluster is rack-scale.
pub(super) fn notes(design: &Design) -> Vec<String> {
    let Some(plan) = design.fabric.sizing.domains.as_ref() else {
        return Vec::new();
    };
    let tree = &design.scheduler;
    let mut v = vec![
        format!(
            "rack-scale ({}): {} NVLink domain(s) of {} trays ({} GPUs); NCCL reaches the other \
             trays of a domain over NVLink (MNNVL) and the other domains over the compute fabric",
            plan.system,
            tree.nvlink.len(),
            plan.trays,
            plan.gpus
        ),
        format!(
            "NCCL_MNNVL_ENABLE left at its default 2 (auto: MNNVL when every rank's GPU fabric \
             state is complete and FABRIC memory handles work; 0 off, 1 forced) ({NCCL}: \
             src/init.cc NCCL_PARAM(MNNVLEnable, \"MNNVL_ENABLE\", 2), src/mnnvl.cc)"
        ),
        format!(
            "MNNVL needs cuMem: do not set NCCL_CUMEM_ENABLE=0 (default -2, auto: on with a CUDA \
             driver >= 12.0 and virtual memory management) ({NCCL}: src/mnnvl.cc \
             ncclMnnvlCheck, src/misc/cudawrap.cc)"
        ),
        format!(
            "MNNVL needs IMEX: an IMEX channel (/dev/nvidia-caps-imex-channels) and the \
             nvidia-imex service on every tray, with its domain's list hosts/imex/<rack>/\
             nodes_config.cfg installed as {}; check with `nvidia-imex-ctl -N` ({NCCL}: \
             src/mnnvl.cc)",
            super::imex::INSTALL_PATH
        ),
        format!(
            "NCCL_NVLS_ENABLE left at its default 2 (auto: NVLink SHARP on the NVLink switches \
             when available) ({NCCL}: src/transport/nvls.cc NCCL_PARAM(NvlsEnable, \
             \"NVLS_ENABLE\", 2))"
        ),
        "GB200 MNNVL is supported in NCCL version 2.25.2 and later (docs.nvidia.com/\
         multi-node-nvlink-systems/multi-node-tuning-guide/nccl.html)"
            .to_string(),
    ];
    if plan.c2c {
        v.push(format!(
            "GPU-CPU NVLink-C2C: nccl-topo.xml carries NCCL's <c2c> only where the node model's \
             pcie layout declares its figures (pcie.c2c); elsewhere NCCL reads the links from \
             NVML itself ({NCCL}: src/graph/xml.cc ncclTopoGetXmlFromGpu, src/graph/topo.cc \
             ncclTopoAddC2c)"
        ));
    }
    v.extend(super::imex::missing(design));
    v
}
