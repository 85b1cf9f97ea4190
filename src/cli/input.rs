//! The limits of the files the command line reads; the bounded read itself is
//! `railyard::output::bounded`, which push shares.

use std::path::Path;

use railyard::output::bounded::{self, Kind, MIB};

/// A spec. The largest real spec (a site catalog overlay with every node model inline) is
/// tens of KB and a 131k-GPU spec under 10 KB; 16 MiB is hundreds of times that, and keeps the
/// YAML parser's memory for a hostile spec in the hundreds of MB.
pub const SPEC: Kind = Kind {
    what: "spec",
    limit: 16 * MIB,
};

/// A template override. The built-in templates are a few KB each (the largest, the report's
/// script, which cannot be overridden, is 18 KB); 1 MiB is far beyond any real one.
pub const TEMPLATE: Kind = Kind {
    what: "template",
    limit: MIB,
};

/// An InfiniBand capture (`ibnetdiscover`, `ibstat`) or a port-GUID CSV. The largest fabric
/// railyard plans (131k GPUs: ~16k nodes with 8 HCAs, ~5k switches of 64 ports, ~100 bytes a
/// line) gives an `ibnetdiscover` of about 50 MB; 256 MiB leaves five times that.
pub const IB_CAPTURE: Kind = Kind {
    what: "InfiniBand capture",
    limit: 256 * MIB,
};

/// A port-GUID CSV (`railyard ib import` output): one ~60-byte row per node port, about 8 MB
/// at 131k GPUs; the capture's limit.
pub const PORT_GUIDS: Kind = Kind {
    what: "port-GUID CSV",
    limit: IB_CAPTURE.limit,
};

/// A device identity CSV (`build --identities`): one ~60-byte row per switch; the capture's
/// limit is ample.
pub const IDENTITIES: Kind = Kind {
    what: "device identity CSV",
    limit: IB_CAPTURE.limit,
};

/// A baseline of accepted findings (`--baseline`): one ~250-byte entry per finding; the
/// shipped specs have a few each, a repository of hundreds of specs some thousands.
pub const BASELINE: Kind = Kind {
    what: "baseline",
    limit: 64 * MIB,
};

/// A reviewed plan (`diff --out`, read by `push --plan`): the whole change as JSON, tens of MB
/// for the largest fabric's growth.
pub const PLAN: Kind = Kind {
    what: "plan",
    limit: 256 * MIB,
};

/// Push's targets file: one entry of ~100 bytes per switch, about 1 MB for the largest fabric.
pub const TARGETS: Kind = Kind {
    what: "targets file",
    limit: 16 * MIB,
};

/// A previous build's `manifest.json` or `.railyard-memo.json`. A 4,096-GPU build's manifest
/// is 179 KB (1,126 files), so about 6 MB at 131k GPUs; 64 MiB is ten times that.
pub const BUILD_RECORD: Kind = Kind {
    what: "build record",
    limit: 64 * MIB,
};

/// One device's LLDP capture (`lldpcli -f json0 show neighbors details`, NVUE's `nv show
/// interface -o json`), parsed as it streams. Measured with lldpd 1.0.16 on this project's lab,
/// json0 with details is 2.2 KB per neighbour (8,689 bytes for four). Allowing 4 KB for a
/// switch's extra TLVs (VLANs, LLDP-MED, long system descriptions), a 64-port switch with every
/// port broken out in four (256 neighbours) writes about 1 MB, and NVUE, which lists every
/// interface's whole state, a few MB. A 16k-GPU fabric (~1,300 switches) holds ~82k neighbour
/// entries on its switches: ~180 MB of json0 in all. 64 MiB is tens of times the largest single
/// device and far below a fabric's worth in one file, which is the mistake (or the attack) the
/// limit refuses; the parser's memory follows the neighbours found, not the file's size.
pub const LLDP_CAPTURE: Kind = Kind {
    what: "LLDP capture",
    limit: 64 * MIB,
};

/// [`bounded::open`], for the command line's errors.
pub fn open(path: &Path, kind: Kind) -> anyhow::Result<bounded::Bounded> {
    Ok(bounded::open(path, kind)?)
}

/// [`bounded::read`], for the command line's errors.
pub fn read(path: &Path, kind: Kind) -> anyhow::Result<Vec<u8>> {
    Ok(bounded::read(path, kind)?)
}

/// [`bounded::read_text`], for the command line's errors.
pub fn read_text(path: &Path, kind: Kind) -> anyhow::Result<String> {
    Ok(bounded::read_text(path, kind)?)
}
