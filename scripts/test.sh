#!/usr/bin/env bash
# The project's test command (README). Installs what it needs on a fresh Debian machine, then
# checks formatting, lints and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cc >/dev/null || need_apt+=(build-essential)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
# Real FRR checks every generated FRR configuration (vtysh -C); Debian's package, not a mock.
[ -x /usr/bin/vtysh ] || need_apt+=(frr)
# The real slurmctld checks every generated topology.conf (tests/deliverables/scheduler.rs).
command -v slurmctld >/dev/null || need_apt+=(slurmctld slurm-client)
# The virtual lab pings between namespaces; cabling verification runs real lldpd.
command -v ping >/dev/null || need_apt+=(iputils-ping)
# Namespaces, veths, per-rail tables and rules (the lab; NCCL's bootstrap in tests/deliverables/nccl_bootstrap.rs).
command -v ip >/dev/null || need_apt+=(iproute2)
# The lab's acceptance run measures its cables with iperf3 (tests/lab/acceptance_lab.rs).
command -v iperf3 >/dev/null || need_apt+=(iperf3)
command -v lldpd >/dev/null || need_apt+=(lldpd)
# Push is tested against yuma123 netconfd behind OpenSSH, and FRR's frr-reload.py.
command -v netconfd >/dev/null || need_apt+=(netconfd)
[ -x /usr/sbin/sshd ] || need_apt+=(openssh-server)
[ -x /usr/lib/frr/frr-reload.py ] || need_apt+=(frr-pythontools)
# yanglint validates every rendered OpenConfig payload and every SONiC config_db.json offline.
command -v yanglint >/dev/null || need_apt+=(libyang2-tools)
# SONiC's own buffer templates (Jinja2) render the reference the SONiC buffers are compared with,
# and the bgp container's supervisord templates the FRR daemons it starts.
python3 -c 'import jinja2' 2>/dev/null || need_apt+=(python3 python3-jinja2)
# InfiniBand partitions are loaded by real OpenSM on a fabric simulated by ibsim, captured and
# queried with infiniband-diags (ibnetdiscover, smpquery); no IB hardware needed.
[ -x /usr/sbin/opensm ] || need_apt+=(opensm)
command -v ibsim >/dev/null || need_apt+=(ibsim-utils)
[ -x /usr/sbin/ibnetdiscover ] || need_apt+=(infiniband-diags)
# Python consumers of the configs (pyavd, NVUE's object model) run in a venv under target/.
python3 -c 'import venv, ensurepip' 2>/dev/null || need_apt+=(python3-venv)
# Headless Chromium opens report.html and the label sheets (tests/deliverables/report.rs), with DejaVu fonts.
command -v chromium >/dev/null || need_apt+=(chromium chromium-driver)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
# zbarimg scans the QR codes of the label sheets as Chromium draws them (tests/deliverables/report.rs).
command -v zbarimg >/dev/null || need_apt+=(zbar-tools)
# Node runs the offline ZPL renderer (zpl-renderer-js, npm) that draws labels/*.zpl (tests/deliverables/labels.rs).
command -v node >/dev/null || need_apt+=(nodejs)
command -v npm >/dev/null || need_apt+=(npm)
# Graphviz's own reader (gvpr: cgraph, what Cumulus ptmd reads topology.dot with) parses every
# exported DOT file (tests/deliverables/exports.rs).
command -v gvpr >/dev/null || need_apt+=(graphviz)
[ -x /usr/bin/time ] || need_apt+=(time)
# The CI gate example (examples/ci/gate.sh, tests/day_two/ci_gate.rs) reads railyard's JSON with jq.
command -v jq >/dev/null || need_apt+=(jq)
# The Cumulus ZTP test runs the generated script, which fetches its files with curl.
command -v curl >/dev/null || need_apt+=(curl)
# groff renders the manual page railyard writes (tests/pipeline/conventions.rs).
command -v groff >/dev/null || need_apt+=(groff-base)
# Day zero: real ISC Kea checks every DHCP server configuration (kea-dhcp4 -t) and hands out the
# leases in the lab, where ISC dhclient asks for them with each switch's MAC; ShellCheck reads
# every generated ZTP script (tests/pipeline/dayzero_*.rs, tests/lab/).
[ -x /usr/sbin/kea-dhcp4 ] || need_apt+=(kea-dhcp4-server)
command -v shellcheck >/dev/null || need_apt+=(shellcheck)
[ -x /usr/sbin/dhclient ] || need_apt+=(isc-dhcp-client)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
  else
    echo "missing Debian packages: ${need_apt[*]} (run as root, or install them: apt-get install ${need_apt[*]})" >&2
    exit 2
  fi
fi
if ! command -v cargo >/dev/null; then
  echo "cargo not found: install the Rust toolchain (rustup) first" >&2
  exit 2
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true
# pyavd (tests/render/eos_avd.rs), the NVUE schema (tests/render/nvue_schema.rs) and jsonschema
# (containerlab's schema, tests/deliverables/exports.rs), pinned, from PyPI.
bash scripts/pyenv.sh >/dev/null
# The ZPL renderer of tests/deliverables/labels.rs, pinned by tests/zpl/package-lock.json, under target/zplenv.
bash scripts/zplenv.sh >/dev/null

# Tests that a developer opted out of (RAILYARD_SKIP, see tests/prereq/mod.rs) record themselves
# here; the list is printed at the end so a skip is never silent.
skipped=target/tmp/railyard-skipped.txt
mkdir -p target/tmp && rm -f "$skipped"
report_skips() {
  if [ -s "$skipped" ]; then
    echo "==== tests SKIPPED on purpose (RAILYARD_SKIP=$RAILYARD_SKIP) ====" >&2
    sort -u "$skipped" >&2
  fi
}
trap report_skips EXIT

cargo fmt --all -- --check
# test-hooks: the push tests kill railyard at chosen points (src/push/hooks.rs); a release
# build never has them.
cargo clippy --all-targets --locked --features test-hooks -- -D warnings
# Includes tests/pipeline/fuzz_corpora.rs (every fuzz corpus file and former finding, replayed on stable)
# and tests/pipeline/spec_generator.rs (generated specs; PROPTEST_CASES raises its case count). The fuzz/
# crate itself needs nightly and is run by hand (fuzz/README.md).
cargo test --locked --all-targets --features test-hooks
# The benchmark builds and runs its smallest size inside `cargo test --all-targets` above (a
# release build of it only for that would cost CI five minutes); `cargo bench --bench scale`
# measures all sizes.
