//! The day-zero files of a build with identities: `dayzero/kea-dhcp4.json`, the provisioning
//! order (`dayzero/provisioning-order.csv`), and with a
//! provisioning URL the ZTP files of every identified switch under `dayzero/ztp/`. They are
//! switch configuration, so they belong to the `configs` output group.

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
    let mut out = vec![OutputFile::new(OutputGroup::Configs, KEA_DHCP4, json)];
    out.extend(super::order::file(&design.fabric)?);
    if let Some(url) = url {
        for d in design
            .fabric
            .devices()
            .filter(|d| ids.0.contains_key(&d.name))
        {
            out.extend(super::ztp::files(d, url)?);
        }
    }
    Ok(Some(out))
}
