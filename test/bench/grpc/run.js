/**
 * gRPC benchmark, in one run: fw's `server.grpc()` vs grpc-js vs a bare
 * node:http2 responder that frames the same reply (the floor) vs
 * connect-node, unary Echo (a 3-field reply) and server-streaming Stream.
 *
 *   npm run bench:grpc
 *   BENCH_PASSES=6 BENCH_SLICE=2 BENCH_CONNECTIONS=8 BENCH_STREAMS=32 BENCH_STREAM_LENGTH=100 npm run bench:grpc
 *   BENCH_BASELINE=../fw-at-main npm run bench:grpc
 *
 * BENCH_BASELINE names another checkout of fw (with node_modules): its
 * `server.grpc()` runs as one more subject, "fw (baseline)", in the same
 * interleaved passes, so a change is measured against the code before it.
 *
 * Each server runs in its own process, all at once, pinned to core 0; the
 * load generator is h2load (nghttp2-client) on the last core, or, when h2load
 * is not installed, a Node HTTP/2 load generator (./h2-load.js) on that core
 * (../support/cpu-pin.js). Both send the same pre-framed request, keep
 * BENCH_CONNECTIONS × BENCH_STREAMS calls in flight, and count calls; a
 * grpc-js client checks every server's answers first (h2load sees HTTP
 * status only). Servers take the load in turn, in BENCH_SLICE-second slices
 * whose order reverses each pass (../support/interleave.js); ratios are
 * medians of the ratio within a pass. The server's CPU per call (from
 * /proc) is printed too: it stays comparable when the machine is busy.
 *
 * Targets: fw ≥ 0.95× node:http2 on unary, fw ≥ grpc-js on streaming.
 */
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { spawn } = require('node:child_process');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');
const { pinLoadGenerator, serverCommand, describePinning } = require('../support/cpu-pin');
const { interleave, pairedRatio, medianOf } = require('../support/interleave');
const { stopChild } = require('../support/stop-child');
const { h2Load, hasH2load } = require('./h2-load');
const { cpuSeconds } = require('../support/process-cpu');
const { compileFw, compileBaseline } = require('../support/compiled-fw');

const PASSES = Math.max(1, Number(process.env.BENCH_PASSES || 6));
const SLICE_MS = Number(process.env.BENCH_SLICE || 2) * 1000;
const REWARM_MS = Number(process.env.BENCH_REWARM || 0.5) * 1000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 8);
const STREAMS = Number(process.env.BENCH_STREAMS || 32);
const STREAM_LENGTH = Number(process.env.BENCH_STREAM_LENGTH || 100);
const PROTO = path.join(__dirname, 'bench.proto');
const SUBJECTS = [
  { name: 'fw', kind: 'fw' },
  { name: 'grpc-js', kind: 'plain' },
  { name: 'node:http2', kind: 'h2' },
  { name: 'connect-node', kind: 'connect' },
];

function startServer(kind, env) {
  return new Promise((resolve, reject) => {
    const [command, args] = serverCommand([path.join(__dirname, 'server.js'), kind]);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start within 30 s`)), 30_000);
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const match = /PORT (\d+)/.exec(buffered);
      if (match) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]) });
      }
    });
    child.on('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

function frame(bytes) {
  const out = Buffer.alloc(5 + bytes.length);
  out.writeUInt32BE(bytes.length, 1);
  Buffer.from(bytes).copy(out, 5);
  return out;
}

/** Every server answers both methods correctly (a grpc-js client; h2load only sees HTTP 200). */
async function check(name, port) {
  const Bench = grpc.loadPackageDefinition(loader.loadSync(PROTO, { defaults: true })).bench.Bench;
  const client = new Bench(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    const echo = await new Promise((resolve, reject) => client.Echo({ id: '42', name: 'bench', count: 1 }, { deadline: Date.now() + 10_000 }, (e, r) => (e ? reject(e) : resolve(r))));
    if (echo.id !== '42' || echo.name !== 'Ada Lovelace' || echo.roles.length !== 2) throw new Error(`${name}: wrong Echo reply ${JSON.stringify(echo)}`);
    const count = await new Promise((resolve, reject) => {
      let n = 0;
      const call = client.Stream({ count: 5 }, { deadline: Date.now() + 10_000 });
      call.on('data', () => (n += 1));
      call.on('error', reject);
      call.on('end', () => resolve(n));
    });
    if (count !== 5) throw new Error(`${name}: Stream sent ${count} messages, not 5`);
  } finally {
    client.close();
  }
}

async function main() {
  pinLoadGenerator();
  compileFw();
  if (process.env.BENCH_BASELINE) SUBJECTS.splice(1, 0, { name: 'fw (baseline)', kind: 'fw', env: { FW_BENCH_DIST: compileBaseline(process.env.BENCH_BASELINE) } });
  const useH2load = hasH2load();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-bench-grpc-'));
  const root = protobuf.loadSync(PROTO);
  const unaryFile = path.join(dir, 'echo.bin');
  const streamFile = path.join(dir, 'stream.bin');
  fs.writeFileSync(unaryFile, frame(root.lookupType('bench.EchoRequest').encode({ id: '42', name: 'bench', count: 1 }).finish()));
  fs.writeFileSync(streamFile, frame(root.lookupType('bench.StreamRequest').encode({ count: STREAM_LENGTH }).finish()));
  const servers = [];
  try {
    for (const s of SUBJECTS) servers.push({ ...s, ...(await startServer(s.kind, s.env)) });
    for (const s of servers) await check(s.name, s.port);
    // Streamed messages are counted from the response bytes: calls of 100 messages finish in batches too coarse to count in a slice.
    const replyFrameBytes = 5 + root.lookupType('bench.EchoReply').encode({ id: '42', name: 'Ada Lovelace', roles: ['admin', 'user'] }).finish().length;
    const scenarios = [
      { name: 'unary', path: '/bench.Bench/Echo', file: unaryFile, msgs: (r) => r.rps },
      { name: 'server streaming', path: '/bench.Bench/Stream', file: streamFile, msgs: (r) => r.dataBytesPerSecond / replyFrameBytes },
    ];
    const results = [];
    for (const scenario of scenarios) {
      const load = (port, ms) => h2Load({ useH2load, port, path: scenario.path, file: scenario.file, ms, connections: CONNECTIONS, streams: STREAMS });
      const subjects = servers.map((s) => ({
        name: s.name,
        measure: async (ms) => {
          const before = cpuSeconds(s.child.pid);
          const started = Date.now();
          const r = await load(s.port, ms);
          const cpu = cpuSeconds(s.child.pid) - before;
          const msgs = scenario.msgs(r);
          return { rps: r.rps, msgs, errors: r.errors, cpuMicros: msgs > 0 ? (cpu * 1e6) / ((msgs * (Date.now() - started)) / 1000) : NaN };
        },
      }));
      for (const s of subjects) await s.measure(Math.min(2000, SLICE_MS)); // warm-up: JIT, connections
      const samples = await interleave(subjects, {
        passes: PASSES,
        sliceMs: SLICE_MS,
        rewarmMs: REWARM_MS,
        onPass: (pass, got) => console.error(`${scenario.name} pass ${pass + 1}/${PASSES}: ${servers.map((s) => `${s.name} ${Math.round(got.get(s.name)[pass].msgs)}`).join(', ')} msgs/s`),
      });
      results.push({ scenario, samples });
    }
    const fixed = (v, digits) => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(digits));
    const table = [];
    table.push(`\ngRPC benchmark: ${useH2load ? 'h2load' : 'Node HTTP/2 load generator'}, ${CONNECTIONS} connections × ${STREAMS} streams, ${PASSES} interleaved passes of ${SLICE_MS / 1000} s; ${describePinning()}`);
    table.push(`Server streaming: ${STREAM_LENGTH} replies per call. Figures are medians over passes; ratios are medians of the within-pass ratio.\n`);
    table.push('| scenario | server | calls/s | msgs/s | server CPU µs/msg | fw ÷ this (msgs/s) |');
    table.push('|---|---|---:|---:|---:|---:|');
    for (const { scenario, samples } of results) {
      for (const s of servers) {
        const ratio = s.name === 'fw' ? '' : fixed(pairedRatio(samples, 'fw', s.name, 'msgs'), 2);
        table.push(`| ${scenario.name} | ${s.name} | ${fixed(medianOf(samples, s.name), 0)} | ${fixed(medianOf(samples, s.name, 'msgs'), 0)} | ${fixed(medianOf(samples, s.name, 'cpuMicros'), 1)} | ${ratio} |`);
      }
    }
    const unary = results[0].samples;
    const streaming = results[1].samples;
    const floorRatio = pairedRatio(unary, 'fw', 'node:http2', 'msgs');
    const streamRatio = pairedRatio(streaming, 'fw', 'grpc-js', 'msgs');
    table.push('');
    table.push(`unary: fw / node:http2 = ${fixed(floorRatio, 2)} (target ≥ 0.95) ${floorRatio >= 0.95 ? 'MET' : 'NOT MET'}; fw / grpc-js = ${fixed(pairedRatio(unary, 'fw', 'grpc-js', 'msgs'), 2)}`);
    table.push(`server streaming: fw / grpc-js = ${fixed(streamRatio, 2)} (target ≥ 1.0) ${streamRatio >= 1 ? 'MET' : 'NOT MET'}`);
    if (process.env.BENCH_BASELINE) {
      table.push(`against the baseline (${process.env.BENCH_BASELINE}): unary fw / fw (baseline) = ${fixed(pairedRatio(unary, 'fw', 'fw (baseline)', 'msgs'), 2)}; baseline / node:http2 = ${fixed(pairedRatio(unary, 'fw (baseline)', 'node:http2', 'msgs'), 2)}; streaming fw / fw (baseline) = ${fixed(pairedRatio(streaming, 'fw', 'fw (baseline)', 'msgs'), 2)}`);
    }
    console.log(table.join('\n'));
  } finally {
    for (const s of servers) await stopChild(s.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
