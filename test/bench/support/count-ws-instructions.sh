#!/usr/bin/env bash
# Instructions per WebSocket call of a server process, counted by callgrind:
# the WebSocket twin of count-instructions.sh, driven by a `ws` client.
#
#   test/bench/support/count-ws-instructions.sh <path> <server command...>
#   e.g. test/bench/support/count-ws-instructions.sh /ws node test/bench/gateway/server.js gateway
#
# The server command must print `PORT <n>` on stdout once listening. Each call
# is one text message, the gateway's JSON call envelope
# {id, service, method, data} (test/bench/gateway/run.js's websocket row),
# answered by one message that must carry "type":"response". The connections
# stay open from the warm-up to the last part, so the count is the steady
# per-call cost, not the handshake (autocannon's HTTP counts do reconnect per
# part). Like the HTTP count it repeats to about 1-2% whatever else the
# machine runs; confirm with `npm run bench:gateway`.
#
# Env: WARM (warm-up calls, default 20000), N (calls per part, 2000), PARTS
# (5; the first two are settling and not reported), C and M (connections and
# calls in flight per connection, 4 and 16, as the bench), CALL (the
# envelope without its id, as JSON; default the bench's Echo.echo call),
# KEEP (a folder to copy the callgrind dumps into, for callgrind_annotate).
set -euo pipefail
path=$1; shift
WARM=${WARM:-20000}; N=${N:-2000}; PARTS=${PARTS:-5}; C=${C:-4}; M=${M:-16}
CALL=${CALL:-'{"service":"Echo","method":"echo","data":{"id":"42","name":"Ada Lovelace","roles":["admin","user"]}}'}
export CALL
command -v valgrind >/dev/null || { echo "valgrind is required (apt-get install valgrind)" >&2; exit 2; }
dir=$(mktemp -d)
# Waits for valgrind to exit before removing its folder: its last dump would race the removal.
trap 'kill "${vpid:-}" 2>/dev/null || true; [ -n "${vpid:-}" ] && { wait "$vpid" 2>/dev/null || true; }; rm -rf "$dir"' EXIT
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$dir/out" "$@" > "$dir/log" 2>&1 &
vpid=$!
for _ in $(seq 1 600); do grep -q '^PORT ' "$dir/log" && break; sleep 0.5; done
port=$(grep -m1 '^PORT ' "$dir/log" | awk '{print $2}' || true)
[ -n "$port" ] || { echo "the server did not print PORT <n>; its output:" >&2; cat "$dir/log" >&2; exit 1; }
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
node -e "
const WebSocket = require('$ROOT/node_modules/ws');
const { execFileSync } = require('node:child_process');
const call = JSON.parse(process.env.CALL);
const control = (...args) => execFileSync('callgrind_control', [...args, '$vpid'], { stdio: 'ignore' });
const open = () => new Promise((resolve, reject) => {
  const ws = new WebSocket('ws://127.0.0.1:$port$path', { perMessageDeflate: false });
  ws.once('open', () => resolve(ws));
  ws.once('error', reject);
});
let seq = 0;
// Exactly 'amount' calls over all connections, at most $M in flight on each; resolves at the last reply.
const run = (conns, amount) => new Promise((resolve, reject) => {
  let sent = 0;
  let answered = 0;
  const send = (ws) => {
    sent++;
    ws.send(JSON.stringify({ id: String(++seq), ...call }));
  };
  for (const ws of conns) {
    ws.removeAllListeners('message');
    ws.on('message', (data) => {
      // A substring test, not JSON.parse: the driver's own work is not what is counted, but it shares the machine.
      if (!String(data).includes('\"type\":\"response\"')) return reject(new Error('not a response: ' + String(data).slice(0, 200)));
      if (++answered === amount) return resolve();
      if (sent < amount) send(ws);
    });
    for (let i = 0; i < $M && sent < amount; i++) send(ws);
  }
});
(async () => {
  const conns = [];
  for (let i = 0; i < $C; i++) conns.push(await open());
  await run(conns, $WARM);
  control('-i', 'on'); await run(conns, 500); control('-z');
  for (let p = 0; p < $PARTS; p++) {
    await run(conns, $N);
    control('-d');
  }
  for (const ws of conns) ws.terminate();
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
echo "instructions per call: $min (parts: ${counts[*]}; first two settling)"
