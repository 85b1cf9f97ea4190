//! InfiniBand port GUIDs from captures of the installed fabric, mapped to the plan's node ports
//! (`railyard ib import`), for OpenSM's partitions.conf:
//! - `ibnetdiscover` output (one capture of the whole fabric; hosts and HCAs by node description,
//!   which rdma-ndd sets to `<hostname> <hca>` by default);
//! - `ibstat` output of one node (the node named on the command line);
//! - a CSV `node,port,guid` (or `node,rdma,guid`) from UFM or an inventory system; the importer
//!   writes the same CSV, which `railyard build --port-guids` reads.

mod csv_file;
mod ibnetdiscover;
mod ibstat;
mod map;

pub use csv_file::{Row, parse as parse_csv, write as write_csv};
pub use ibnetdiscover::parse as parse_ibnetdiscover;
pub use ibstat::parse as parse_ibstat;
pub use map::{Imported, map};

use crate::diag::Span;
use crate::model::Guid;

/// Which port of a node a captured GUID belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortRef {
    /// An HCA port: RDMA device and port number (`mlx5_0`, 1).
    Hca { rdma: String, port: u8 },
    /// A catalog port name (`OSFP4P2`), as the GUID CSV names it.
    Named(String),
}

/// One port GUID found in a capture.
#[derive(Clone, Debug)]
pub struct CapturedPort {
    /// Index of the capture file among those imported together.
    pub file: usize,
    /// Where the GUID stands in that file.
    pub span: Span,
    pub host: String,
    pub port: PortRef,
    pub guid: Guid,
    /// How the capture names the switch the port is cabled to (`ibnetdiscover` only).
    pub peer: Option<String>,
}
