//! Running the system tools the lab drives (`ip`, `vtysh`, FRR daemons, `ping`), with the
//! command line and its stderr in every error.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use super::LabError;

/// `prog args…` as one printable line.
pub fn describe(c: &Command) -> String {
    let mut s = c.get_program().to_string_lossy().into_owned();
    for a in c.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

fn spawn_error(c: &Command, e: &std::io::Error) -> LabError {
    let prog = c.get_program().to_string_lossy().into_owned();
    if e.kind() == std::io::ErrorKind::NotFound {
        return LabError::MissingTool {
            package: package_of(&prog).to_string(),
            tool: prog,
        };
    }
    LabError::Command {
        what: describe(c),
        detail: e.to_string(),
    }
}

/// The Debian package that ships a tool the lab uses.
pub fn package_of(tool: &str) -> &'static str {
    match tool.rsplit('/').next().unwrap_or(tool) {
        "ip" | "bridge" => "iproute2",
        "ping" => "iputils-ping",
        "unshare" | "nsenter" => "util-linux",
        "mount" => "mount",
        "sysctl" | "kill" => "procps",
        "chown" => "coreutils",
        "sh" => "dash",
        _ => "frr",
    }
}

/// Run to completion; any non-zero exit is an error carrying stderr.
pub fn run(c: &mut Command) -> Result<Output, LabError> {
    let out = c
        .stdin(Stdio::null())
        .output()
        .map_err(|e| spawn_error(c, &e))?;
    if !out.status.success() {
        return Err(failed(c, &out));
    }
    Ok(out)
}

/// Run with `input` on stdin (`ip -batch -`); any non-zero exit is an error carrying stderr.
pub fn run_with_input(c: &mut Command, input: &str) -> Result<Output, LabError> {
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| spawn_error(c, &e))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A failed write shows up as the command's own error below.
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = child.wait_with_output().map_err(|e| spawn_error(c, &e))?;
    if !out.status.success() {
        return Err(failed(c, &out));
    }
    Ok(out)
}

/// Run and return the output whatever the exit status (the caller judges it).
pub fn output(c: &mut Command) -> Result<Output, LabError> {
    c.stdin(Stdio::null())
        .output()
        .map_err(|e| spawn_error(c, &e))
}

fn failed(c: &Command, out: &Output) -> LabError {
    let mut detail = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if detail.is_empty() {
        detail = String::from_utf8_lossy(&out.stdout).trim().to_string();
    }
    LabError::Command {
        what: describe(c),
        detail: format!("{} ({})", detail, out.status),
    }
}

/// Whether a program is on `PATH` (or, with a slash, exists).
pub fn have(tool: &str) -> bool {
    if tool.contains('/') {
        return std::path::Path::new(tool).exists();
    }
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_name_the_debian_package() {
        assert_eq!(package_of("/usr/lib/frr/zebra"), "frr");
        assert_eq!(package_of("ping"), "iputils-ping");
        assert_eq!(package_of("ip"), "iproute2");
    }
}
