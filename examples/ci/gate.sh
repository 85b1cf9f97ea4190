#!/bin/sh
# railyard as a pull-request gate (docs/ci.md), as a CI job runs it: reads only what railyard
# prints on standard output (one JSON document per command) and its exit codes.
#
# Usage, from the repository root (specs in specs/*.yaml, accepted findings in
# ci/baseline.json): gate.sh BASE, where BASE is a checkout of the pull request's base branch.
# Per spec added, changed, deleted or unchanged, one line: `<spec> <verdict> <gate>`, then
# `gate: pass|approval|fail`. Exit 0 pass, 2 a disruptive change needs approval, 1 fail.
#
# A spec fails when it is invalid under --strict (a warning not in the baseline, an error) or
# when diff cannot compare (exit 3); it needs approval when diff says disruptive (exit 2: a
# cable moved or removed, a session reset, a number changed, a spec deleted); else it passes.
# Environment: RAILYARD (the binary, default `railyard`), BASELINE (default ci/baseline.json).
set -eu

base=$1
railyard=${RAILYARD:-railyard}
baseline=${BASELINE:-ci/baseline.json}
accepted=""
if [ -f "$baseline" ]; then
    accepted="--baseline $baseline"
fi

worst=pass
rank() {
    case $1 in fail) echo 2 ;; approval) echo 1 ;; *) echo 0 ;; esac
}

specs=$( { (cd "$base" && find specs -name '*.yaml' 2>/dev/null) || true
           find specs -name '*.yaml' 2>/dev/null || true; } | sort -u)
for spec in $specs; do
    gate=pass
    if [ -e "$spec" ]; then
        # shellcheck disable=SC2086 # $accepted is two words or none
        valid=$("$railyard" validate "$spec" --strict $accepted --format json | jq -r .exit_code)
        [ "$valid" = 0 ] || gate=fail
    fi
    doc=$("$railyard" diff "$base/$spec" "$spec" --missing-is-empty --format json || true)
    verdict=$(printf '%s\n' "$doc" | jq -r '.verdict // "cannot-compare"')
    case $(printf '%s\n' "$doc" | jq -r .exit_code) in
        0 | 1) ;;
        2) [ "$gate" = fail ] || gate=approval ;;
        *) gate=fail ;;
    esac
    printf '%s %s %s\n' "$spec" "$verdict" "$gate"
    if [ "$(rank "$gate")" -gt "$(rank "$worst")" ]; then
        worst=$gate
    fi
done

echo "gate: $worst"
case $worst in
    pass) exit 0 ;;
    approval) exit 2 ;;
    *) exit 1 ;;
esac
