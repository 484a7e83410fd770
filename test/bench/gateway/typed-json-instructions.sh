#!/usr/bin/env bash
# Instructions per call of the typed proto3 JSON path, this checkout against
# another (BASELINE, a checkout of fw with its own node_modules), on the
# gateway's HTTP/JSON and WebSocket JSON transports: server kinds user-plain
# (only the reply written by the typed JSON code) and user-echo (request read
# and reply written by it). Each side runs its own compiled runtime and its
# own fw-gen's code of this checkout's test/bench/gateway/proto
# (../support/compiled-fw.js --gen); runs alternate between the sides.
#
#   BASELINE=/path/to/other/checkout test/bench/gateway/typed-json-instructions.sh
#
# Env: BASELINE (required), RUNS (runs per side and workload, 2), KEEP (a
# folder: dumps kept as KEEP/<kind>-<transport>-<side>-<run>), and WARM, N,
# PARTS as count-instructions.sh takes them (defaults here 40000, 2000, 5).
set -euo pipefail
: "${BASELINE:?BASELINE=<checkout of fw to compare with>}"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
RUNS=${RUNS:-2}
export WARM=${WARM:-40000} N=${N:-2000} PARTS=${PARTS:-5}
before=$(cd "$BASELINE" && pwd)/node_modules/.cache/fw-typed-json-baseline
after=$ROOT/node_modules/.cache/fw-typed-json-current
trap 'rm -rf "$before" "$after"' EXIT
node "$ROOT/test/bench/support/compiled-fw.js" "$BASELINE" "$before" --gen "$ROOT/test/bench/gateway/proto" >/dev/null
node "$ROOT/test/bench/support/compiled-fw.js" "$ROOT" "$after" >/dev/null
plain='{"name":"Ada Lovelace","email":"ada@example.com"}'
user='{"id":"42","name":"Ada Lovelace","email":"ada@example.com","address":{"city":"London","country":"UK"},"roles":["admin","user"],"createdAt":"2024-01-02T03:04:05.678Z"}'
req() { node -e 'console.log(JSON.stringify({ method: "POST", headers: { "content-type": "application/json" }, body: process.argv[1] }))' "$1"; }
call() { node -e 'console.log(JSON.stringify({ service: process.argv[1], method: process.argv[2], data: JSON.parse(process.argv[3]) }))' "$1" "$2" "$3"; }
cd "$ROOT"
# kind | HTTP path | service | method | body
while IFS='|' read -r kind url service method body; do
  for transport in http ws; do
    for run in $(seq 1 "$RUNS"); do
      for side in baseline current; do
        dist=$before; [ "$side" = current ] && dist=$after
        keep=${KEEP:+$KEEP/$kind-$transport-$side-$run}
        printf '%s %s %s %s: ' "$kind" "$transport" "$side" "$run"
        if [ "$transport" = http ]; then
          REQ=$(req "$body") FW_BENCH_DIST=$dist KEEP=$keep test/bench/support/count-instructions.sh "$url" node test/bench/gateway/server.js "$kind"
        else
          CALL=$(call "$service" "$method" "$body") FW_BENCH_DIST=$dist KEEP=$keep test/bench/support/count-ws-instructions.sh /ws node test/bench/gateway/server.js "$kind"
        fi
      done
    done
  done
done <<ROWS
user-plain|/users|plainuser.UserService|CreateUser|$plain
user-echo|/users/echo|userecho.UserEcho|Echo|$user
ROWS
