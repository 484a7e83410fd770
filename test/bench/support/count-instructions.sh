#!/usr/bin/env bash
# Instructions per HTTP request of a server process, counted by callgrind.
#
#   test/bench/support/count-instructions.sh <path> <server command...>
#   e.g. test/bench/support/count-instructions.sh /hello node my-server.js
#
# The server command must print `PORT <n>` on stdout once listening. Wall-clock
# req/s on a small shared VM moves by ±10-20% between identical runs; this
# count repeats to about 1-2% (garbage collection is the noise), so it is what
# to steer optimisations by. It does not see kernel time or cache behaviour:
# confirm the final effect with `npm run bench:http`.
#
# Env: WARM (warm-up requests, default 20000), N (requests per part, 2000),
# PARTS (parts, 5; the first two are settling and not reported),
# REQ (extra autocannon options as JSON, e.g. '{"method":"POST","body":"{}"}'),
# KEEP (a folder to copy the callgrind dumps into, for callgrind_annotate;
# they are otherwise removed with the run's temporary folder).
set -euo pipefail
path=$1; shift
WARM=${WARM:-20000}; N=${N:-2000}; PARTS=${PARTS:-5}
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)" >&2; exit 2; }
dir=$(mktemp -d)
# Waits for valgrind to exit before removing its folder: its last dump would race the removal.
trap 'kill "$vpid" 2>/dev/null || true; wait "$vpid" 2>/dev/null || true; rm -rf "$dir"' EXIT
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$dir/out" "$@" > "$dir/log" 2>&1 &
vpid=$!
for _ in $(seq 1 600); do grep -q '^PORT ' "$dir/log" && break; sleep 0.5; done
port=$(grep -m1 '^PORT ' "$dir/log" | awk '{print $2}')
[ -n "$port" ] || { echo "the server did not print PORT <n>; its output:" >&2; cat "$dir/log" >&2; exit 1; }
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
node -e "
const autocannon = require('$ROOT/node_modules/autocannon');
const { execFileSync } = require('node:child_process');
const extra = JSON.parse(process.env.REQ || '{}');
const run = (amount) => new Promise((resolve, reject) => autocannon({ url: 'http://127.0.0.1:$port$path', connections: 10, amount, ...extra }, (e, r) => (e ? reject(e) : resolve(r))));
const control = (...args) => execFileSync('callgrind_control', [...args, '$vpid'], { stdio: 'ignore' });
(async () => {
  await run($WARM);
  control('-i', 'on'); await run(500); control('-z');
  for (let p = 0; p < $PARTS; p++) {
    const r = await run($N);
    control('-d');
    if (r.non2xx || r.errors) throw new Error('non-2xx answers or errors: check the path');
  }
})().catch((e) => { console.error(e.message); process.exit(1); });
"
counts=()
for f in $(ls -v "$dir"/out.*); do
  total=$(grep -m1 '^totals' "$f" | awk '{print $2}')
  counts+=($((total / N)))
done
[ -z "${KEEP:-}" ] || { mkdir -p "$KEEP"; cp "$dir"/out.* "$KEEP"/; }
steady=("${counts[@]:2}")
min=$(printf '%s\n' "${steady[@]}" | sort -n | head -1)
echo "instructions per request: $min (parts: ${counts[*]}; first two settling)"
