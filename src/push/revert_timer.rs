//! The device-side revert timer for platforms without a native confirmed commit (FRR on Linux,
//! SONiC): armed *before* the change is applied, so a controller that dies at any point leaves a
//! device that goes back by itself; disarmed by the confirm.

use std::time::Duration;

use crate::output::shell::quote as q;

/// Shell that arms a device-side revert: after `timeout`, run `revert` (logging to `log`).
/// `setsid` gives the timer its own process group (killed as a group on disarm) and detaches it
/// from the SSH session, so it fires even when railyard is gone. Prints `armed` on success.
pub(super) fn arm_script(pidfile: &str, timeout: Duration, revert: &str, log: &str) -> String {
    let body = format!(
        "sleep {secs}; {revert} >> {log} 2>&1; rm -f {pid}",
        secs = timeout.as_secs().max(1),
        log = q(log),
        pid = q(pidfile),
    );
    format!(
        "setsid sh -c {} < /dev/null > /dev/null 2>&1 & echo $! > {p}; \
         kill -0 $(cat {p}) && echo armed",
        q(&body),
        p = q(pidfile)
    )
}

/// Shell that disarms the timer: prints `disarmed` when it was still pending, `gone` when it had
/// already fired (or never existed).
pub(super) fn disarm_script(pidfile: &str) -> String {
    format!(
        "if [ -s {p} ]; then kill -TERM -- -$(cat {p}) 2>/dev/null; r=$?; rm -f {p}; \
         [ $r = 0 ] && echo disarmed || echo gone; else echo gone; fi",
        p = q(pidfile)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_the_nested_shell() {
        assert_eq!(q("a'b"), r"'a'\''b'");
        let s = arm_script("/x/p id", Duration::from_secs(0), "echo 'hi'", "/x/l");
        assert!(s.contains("sleep 1;"), "{s}");
        assert!(s.contains("echo armed"), "{s}");
    }
}
