#!/usr/bin/env bash
# Creates (or refreshes) target/pyenv, the virtualenv of the Python programs the tests run as
# real consumers of railyard's output: pyavd (Arista's EOS renderer), the NVUE object-model
# schema and openpyxl (the workbook). Pinned by tests/python/requirements.txt; pip installs
# from PyPI, never system-wide.
# Idempotent and safe to run concurrently: a stamp holds the requirements' hash, a lock
# serializes the work. Prints the venv's python on success.
set -euo pipefail
cd "$(dirname "$0")/.."

req=tests/python/requirements.txt
venv=target/pyenv
mkdir -p target
exec 9>target/pyenv.lock
flock 9

want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$want" ]; then
  echo "$PWD/$venv/bin/python"
  exit 0
fi

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "python3 with the venv module is needed (Debian: apt-get install python3-venv)" >&2
  exit 2
fi
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req" >&2
echo "$want" >"$venv/.stamp"
echo "$PWD/$venv/bin/python"
