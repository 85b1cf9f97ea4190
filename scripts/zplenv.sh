#!/usr/bin/env bash
# Creates (or refreshes) target/zplenv, the offline ZPL renderer the label tests draw railyard's
# labels/*.zpl with (tests/deliverables/labels.rs): zpl-renderer-js from the npm registry, pinned by
# tests/zpl/package-lock.json, installed with `npm ci` under target/, never globally.
# Idempotent and safe to run concurrently: a stamp holds the lock file's hash, a lock serializes
# the work. Prints the directory holding render.cjs and node_modules on success.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=target/zplenv
mkdir -p target
exec 9>target/zplenv.lock
flock 9

want=$(cat tests/zpl/package.json tests/zpl/package-lock.json tests/zpl/render.cjs | sha256sum | cut -d' ' -f1)
if [ -d "$dir/node_modules/zpl-renderer-js" ] && [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$want" ]; then
  echo "$PWD/$dir"
  exit 0
fi

if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  echo "node and npm are needed (Debian: apt-get install nodejs npm)" >&2
  exit 2
fi
rm -rf "$dir"
mkdir -p "$dir"
cp tests/zpl/package.json tests/zpl/package-lock.json tests/zpl/render.cjs "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
echo "$want" >"$dir/.stamp"
echo "$PWD/$dir"
