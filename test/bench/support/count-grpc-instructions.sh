#!/usr/bin/env bash
# Instructions per gRPC call of a server process, counted by callgrind: the
# gRPC twin of count-instructions.sh, driven by h2load (nghttp2-client).
#
#   test/bench/support/count-grpc-instructions.sh <kind> [method]
#   e.g. test/bench/support/count-grpc-instructions.sh fw Echo
#
# <kind> is one of test/bench/grpc/server.js's servers (fw, plain, h2,
# connect); [method] is Echo (unary, default) or Stream (STREAM_LENGTH
# replies per call, default 100). The count repeats to about 1-2% whatever
# else the machine runs, so it is what to steer the gRPC path by; confirm
# with `npm run bench:grpc`.
#
# Env: FW_BENCH_DIST (a compiled copy of fw to use; else one is compiled),
# WARM (warm-up calls, default 20000), N (calls per part, 4000),
# PARTS (5; the first two are settling and not reported), C and M (h2load
# connections and streams per connection, 8 and 32), KEEP (a folder to copy
# the callgrind dumps into, for callgrind_annotate).
set -euo pipefail
kind=$1; method=${2:-Echo}
WARM=${WARM:-20000}; N=${N:-4000}; PARTS=${PARTS:-5}; C=${C:-8}; M=${M:-32}
STREAM_LENGTH=${STREAM_LENGTH:-100}
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)" >&2; exit 2; }
command -v h2load >/dev/null || { echo "h2load is required (apt-get install nghttp2-client)" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
dir=$(mktemp -d)
own_dist=
trap 'kill "${vpid:-}" 2>/dev/null || true; [ -n "${vpid:-}" ] && { wait "$vpid" 2>/dev/null || true; }; rm -rf "$dir" ${own_dist:+"$own_dist"}' EXIT
# The request, framed as gRPC (5-byte prefix), written once.
node -e "
const protobuf = require('$ROOT/node_modules/protobufjs');
const root = protobuf.loadSync('$ROOT/test/bench/grpc/bench.proto');
const body = '$method' === 'Stream'
  ? root.lookupType('bench.StreamRequest').encode({ count: $STREAM_LENGTH }).finish()
  : root.lookupType('bench.EchoRequest').encode({ id: '42', name: 'bench', count: 1 }).finish();
const out = Buffer.alloc(5 + body.length);
out.writeUInt32BE(body.length, 1);
Buffer.from(body).copy(out, 5);
require('node:fs').writeFileSync('$dir/request', out);
"
# fw as deployed: compiled (compiled-fw.js), unless FW_BENCH_DIST names a copy already.
if [ "$kind" = fw ] && [ -z "${FW_BENCH_DIST:-}" ]; then
  # Inside the checkout, so the compiled files resolve fw's own node_modules.
  mkdir -p "$ROOT/node_modules/.cache"
  FW_BENCH_DIST=$(mktemp -d "$ROOT/node_modules/.cache/fw-count-dist-XXXXXX"); export FW_BENCH_DIST
  own_dist=$FW_BENCH_DIST
  node "$ROOT/node_modules/typescript/bin/tsc" -p "$ROOT/tsconfig.build.json" --outDir "$FW_BENCH_DIST"
fi
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$dir/out" node "$ROOT/test/bench/grpc/server.js" "$kind" > "$dir/log" 2>&1 &
vpid=$!
for _ in $(seq 1 600); do grep -q '^PORT ' "$dir/log" && break; sleep 0.5; done
port=$(grep -m1 '^PORT ' "$dir/log" | awk '{print $2}' || true)
[ -n "$port" ] || { echo "the server did not print PORT <n>; its output:" >&2; cat "$dir/log" >&2; exit 1; }
load() {
  out=$(h2load -n "$1" -c "$C" -m "$M" -d "$dir/request" -H 'content-type: application/grpc' -H 'te: trailers' "http://127.0.0.1:$port/bench.Bench/$method")
  # A here-string, not a pipe: grep -q exits at its match, and under pipefail the echo it cut off (SIGPIPE) failed the check.
  grep -q " $1 succeeded, 0 failed, 0 errored" <<< "$out" || { echo "h2load: not every call succeeded:" >&2; echo "$out" >&2; exit 1; }
}
load "$WARM"
callgrind_control -i on "$vpid" >/dev/null; load 500; callgrind_control -z "$vpid" >/dev/null
for _ in $(seq 1 "$PARTS"); do load "$N"; callgrind_control -d "$vpid" >/dev/null; done
counts=()
for f in $(ls -v "$dir"/out.*); do
  total=$(grep -m1 '^totals' "$f" | awk '{print $2}')
  counts+=($((total / N)))
done
[ -z "${KEEP:-}" ] || { mkdir -p "$KEEP"; cp "$dir"/out.* "$KEEP"/; }
steady=("${counts[@]:2}")
min=$(printf '%s\n' "${steady[@]}" | sort -n | head -1)
echo "instructions per call: $min (parts: ${counts[*]}; first two settling)"
