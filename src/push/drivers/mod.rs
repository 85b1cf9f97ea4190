//! The device drivers, one folder per way of pushing: each OS's own driver
//! (`<os>/`, named after its platform, `Platform::row().push`) and the generic `netconf/` one.
//! A folder holds the driver, its canonical line form and the facts those lines state for
//! disruptive changes (`facts.rs`, read by `push::disruptive`). `commands.rs` is what the
//! command drivers (NVUE, EOS, SONiC) share; `context.rs` the context-path lines of the CLI
//! configs (FRR, EOS).

pub(super) mod commands;
pub(super) mod eos;
pub(super) mod frr;
pub(super) mod netconf;
pub(super) mod nvue;
pub(super) mod sonic;
