//! The day-zero files of a build with identities: `dayzero/kea-dhcp4.json` (and, from #45 item 2,
//! the ZTP files under `dayzero/ztp/`). They are switch configuration, so they belong to the
//! `configs` output group.

use super::identities::Identities;
use super::url::ProvisioningUrl;
use crate::design::Design;
use crate::diag::Diagnostics;
use crate::output::{FileError, InFile, OutputFile, OutputGroup};

pub const KEA_DHCP4: &str = "dayzero/kea-dhcp4.json";

/// The day-zero files, or `Ok(None)` when the reservations were refused (reported in `diags`).
pub fn files(
    design: &Design,
    ids: &Identities,
    url: Option<&ProvisioningUrl>,
    diags: &mut Diagnostics,
) -> Result<Option<Vec<OutputFile>>, FileError> {
    let Some(kea) = super::kea_dhcp4(&design.fabric, &design.allocation, ids, url, diags) else {
        return Ok(None);
    };
    let mut json = serde_json::to_vec_pretty(&kea).in_file(KEA_DHCP4)?;
    json.push(b'\n');
    Ok(Some(vec![OutputFile::new(
        OutputGroup::Configs,
        KEA_DHCP4,
        json,
    )]))
}
