//! FRR's own reading of a config file: a scratch FRR (the daemons the device runs, same
//! `frr defaults` profile, same binaries) started on the device in a private network namespace,
//! loaded with the file, asked for `show running-config`, and stopped. Whatever FRR does with a
//! line — drop a default (`no bgp ebgp-requires-policy` under `datacenter`, a BFD profile's
//! `detect-multiplier 3`), reorder, respell (`frr version`), ignore (`line vty`) — it does the
//! same to both sides of a comparison, so only real differences remain.
//!
//! Why on the device and in a private namespace: the device's FRR version decides the canonical
//! form; the scratch zebra must see no interfaces or routes of the device and program nothing.
//! It needs `unshare` (util-linux) and root, as frr-reload.py does. The daemons run as FRR's
//! compiled-in user (`frr`) from `bindir`, with vty sockets, zserv socket, pid and log files in
//! a temporary directory (`mktemp -d`), removed on exit. Measured here:
//! 0.3–0.4 s for zebra + bgpd + staticd + bfdd and a 100-line config.

use crate::output::shell::quote as q;

/// `$1` config to load, `$2` output file, `$3` defaults profile, `$4` daemons (zebra first),
/// `$5` daemon directory. The daemons' directory is a fresh one under `$TMPDIR` (the daemons
/// run as `frr` and cannot enter railyard's private state directory).
const SCRIPT: &str = r#"
set -u
conf=$1 out=$2 profile=$3 daemons=$4 bindir=$5
w=$(mktemp -d -t railyard-scratch.XXXXXX) || exit 3
stop() {
  for p in "$w"/*.pid; do [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null; done
  rm -rf "$w"
}
trap stop EXIT
chown frr:frr "$w" && chmod 755 "$w" && : > "$w/vtysh.conf" || exit 3
unshare -n sh -c '
  w=$1 profile=$2 daemons=$3 bindir=$4 conf=$5
  for d in $daemons; do
    "$bindir/$d" -d -F "$profile" -P 0 --vty_socket "$w" -z "$w/zserv.api" -i "$w/$d.pid" \
      --log "file:$w/$d.log" -f /dev/null 2>/dev/null \
      || { echo "scratch FRR: $d did not start" >&2; exit 4; }
  done
  for d in $daemons; do
    n=0
    while [ ! -S "$w/$d.vty" ]; do
      n=$((n + 1))
      [ $n -gt 600 ] && { echo "scratch FRR: $d opened no vty within 30 s" >&2; exit 5; }
      sleep 0.05
    done
  done
  vtysh --vty_socket "$w" --config_dir "$w" -f "$conf" > "$w/load.log" 2>&1
  vtysh --vty_socket "$w" --config_dir "$w" -c "show running-config"
' sh "$w" "$profile" "$daemons" "$bindir" "$conf" > "$out"
"#;

/// Shell that prints the names of the FRR daemons with a vty socket in `vty_dir` (what the
/// device runs), zebra first, watchfrr left out.
pub(crate) fn daemons_command(vty_dir: &str) -> String {
    format!(
        "cd {} && for f in *.vty; do [ -S \"$f\" ] && echo \"${{f%.vty}}\"; done",
        q(vty_dir)
    )
}

/// The daemons to start, in order, from [`daemons_command`]'s output.
pub(crate) fn daemons(listing: &str) -> Vec<String> {
    let mut v: Vec<String> = listing
        .lines()
        .map(str::trim)
        .filter(|d| {
            !d.is_empty()
                && *d != "watchfrr"
                && d.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
        .map(str::to_string)
        .collect();
    v.sort_by_key(|d| (d != "zebra", d.clone()));
    v.dedup();
    v
}

/// Shell that loads `conf` into a scratch FRR and writes its running config to `out`.
pub(crate) fn normalize_command(
    conf: &str,
    out: &str,
    profile: &str,
    daemons: &[String],
    bindir: &str,
) -> String {
    format!(
        "sh -c {} sh {} {} {} {} {}",
        q(SCRIPT),
        q(conf),
        q(out),
        q(profile),
        q(&daemons.join(" ")),
        q(bindir),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zebra_first_and_no_watchfrr() {
        assert_eq!(
            daemons("bgpd\nwatchfrr\nbfdd\nzebra\n\nstaticd\nbad name\n"),
            vec!["zebra", "bfdd", "bgpd", "staticd"]
        );
    }
}
