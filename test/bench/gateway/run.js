#!/usr/bin/env node
/**
 * Gateway benchmark: unary echo calls/s per transport, fw's gateway vs the raw
 * floor of that transport, in one run. Each server runs in its own child
 * process; load comes from this process.
 *
 *   npm run bench:gateway
 *   BENCH_PASSES=10 BENCH_SLICE=1 BENCH_CONNECTIONS=4 BENCH_INFLIGHT=16 BENCH_ONLY=http,tcp,connect npm run bench:gateway
 *   BENCH_ONLY=validation npm run bench:gateway   (only the validated-unary rows)
 *   BENCH_ONLY=typed BENCH_BASELINE=../fw-at-main npm run bench:gateway   (typed proto3 JSON rows, against another checkout)
 *   BENCH_BASELINE=../fw-at-main BENCH_ONLY=http,websocket npm run bench:gateway
 *
 * BENCH_BASELINE names another checkout of fw (with node_modules): its
 * gateway runs as one more subject, "fw (baseline)", in the same interleaved
 * passes of every row whose gateway column is the Echo gateway (not the
 * validated rows: their generated services are this checkout's), so a change
 * is measured against the code before it.
 *
 * Floors: bare node:http echo, bare ws echo, bare dgram echo, bare net echo,
 * plain grpc-js (same JSON codec). Target: gateway ≥ 0.8× each floor. The
 * `connect` row puts Connect unary (JSON, /Echo/echo) against the gateway's
 * own HTTP/JSON unary (/api/Echo/echo) in two gateway processes: ≥ 0.9×. Two
 * reference rows (not targets) add HTTP and UDP floors that decode the JSON
 * message and encode the reply, as the gateway and the grpc-js floor must. The
 * server process's CPU time per call is printed too. Per scenario the floor and
 * a gateway run at once and take the load in turn, BENCH_SLICE seconds each,
 * for BENCH_PASSES passes; figures are medians over passes, and ratios medians
 * of the ratio within a pass (../support/interleave.js says why). Then
 * every `forwarding*-run.js` scenario file beside this one runs (the
 * observability developer's gateway-forwarding benchmark).
 *
 * CPU pinning (../support/cpu-pin.js, as bench:http): every server, floor and
 * gateway alike, runs on core 0 and this load generator on the last core, so
 * both sides of a ratio get one whole core each instead of whatever the
 * scheduler gave them on a two-core machine (BENCH_PIN=0 turns it off).
 * `taskset` execs node, so the child's pid (used for its CPU time) is node's.
 */
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const { spawn, spawnSync } = require('node:child_process');
const dgram = require('node:dgram');
const net = require('node:net');
const grpc = require('@grpc/grpc-js');
const WebSocket = require('ws');
const autocannon = require('autocannon');
const os = require('node:os');
const { pinLoadGenerator, serverCommand, describePinning, PINNED } = require('../support/cpu-pin');
const { interleave, pairedRatio, medianOf } = require('../support/interleave');
const { stopChild } = require('../support/stop-child');
const { cpuSeconds } = require('../support/process-cpu');
const { compileFw, compileBaseline } = require('../support/compiled-fw');

const PASSES = Math.max(1, Number(process.env.BENCH_PASSES || 10));
const SLICE_MS = Number(process.env.BENCH_SLICE || 1) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP || 1) * 1000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 4);
const INFLIGHT = Number(process.env.BENCH_INFLIGHT || 16);
const TARGET = 0.8;
const HOST = '127.0.0.1';
const PAYLOAD = { id: '42', name: 'Ada Lovelace', roles: ['admin', 'user'] };
const CONNECT_HEADERS = { 'content-type': 'application/json', 'connect-protocol-version': '1' };
/** createUser's request in the validated-unary scenario: valid under user.proto's rules. */
const USER = { name: 'Ada Lovelace', email: 'ada@example.com' };
/** userecho.User in the typed rows: read by the typed proto3 JSON reader and written back by the typed writer (a Timestamp, a 64-bit-free id). */
const TYPED_USER = { id: '42', name: 'Ada Lovelace', email: 'ada@example.com', address: { city: 'London', country: 'UK' }, roles: ['admin', 'user'], createdAt: '2024-01-02T03:04:05.678Z' };
const VALIDATION_TARGET = 0.97;

function startServer(kind, env) {
  return new Promise((resolve, reject) => {
    const [command, args] = serverCommand([path.join(__dirname, 'server.js'), kind]);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start within 30 s`)), 30_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /PORT (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]) });
      }
    });
    child.on('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

// ---- load generators: each returns completed calls per second ----

async function httpLoad(port, urlPath, durationMs, headers = { 'content-type': 'application/json' }, payload = PAYLOAD) {
  const result = await autocannon({
    url: `http://${HOST}:${port}${urlPath}`,
    method: 'POST',
    headers,
    body: JSON.stringify(payload),
    connections: CONNECTIONS * 4,
    pipelining: 1,
    duration: durationMs / 1000,
  });
  return { rps: result.requests.average, errors: result.errors + result.non2xx };
}

/** `open()` gives a connection with send(id) and onReply(cb(id)); INFLIGHT calls per connection, bounded by time. */
async function inflightLoad(open, durationMs) {
  const conns = [];
  for (let i = 0; i < CONNECTIONS; i++) conns.push(await open());
  let done = 0;
  let seq = 0;
  const deadline = Date.now() + durationMs;
  const started = Date.now();
  await Promise.all(
    conns.map(
      (c) =>
        new Promise((resolve) => {
          let inflight = 0;
          let last = Date.now();
          const pump = () => {
            while (inflight < INFLIGHT && Date.now() < deadline) {
              inflight++;
              c.send(String(++seq));
            }
            if (inflight === 0 && Date.now() >= deadline) finish();
          };
          // Datagrams may be lost: after 200 ms without a reply, stop waiting for the missing ones.
          const watchdog = setInterval(() => {
            if (Date.now() - last > 200) {
              inflight = 0;
              last = Date.now();
              if (Date.now() >= deadline) finish();
              else pump();
            }
          }, 100);
          let finished = false;
          const finish = () => {
            if (finished) return;
            finished = true;
            clearInterval(watchdog);
            resolve();
          };
          c.onReply(() => {
            done++;
            inflight = Math.max(0, inflight - 1);
            last = Date.now();
            if (Date.now() < deadline) pump();
            else if (inflight === 0) finish();
          });
          pump();
        }),
    ),
  );
  const seconds = (Date.now() - started) / 1000;
  for (const c of conns) c.close();
  return { rps: done / seconds, errors: 0 };
}

function frame(payload) {
  const body = Buffer.from(JSON.stringify(payload));
  const head = Buffer.alloc(6);
  head[0] = 1;
  head[1] = 1;
  head.writeUInt32BE(body.length, 2);
  return Buffer.concat([head, body]);
}

function countFrames(onFrame) {
  let buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    let offset = 0;
    while (buffer.length - offset >= 6) {
      const len = buffer.readUInt32BE(offset + 2);
      if (buffer.length - offset < 6 + len) break;
      offset += 6 + len;
      onFrame();
    }
    buffer = buffer.subarray(offset);
  };
}

const openTcp = (port) => () =>
  new Promise((resolve) => {
    const socket = net.connect({ port, host: HOST, noDelay: true }, () => {
      let cb = () => undefined;
      socket.on('data', countFrames(() => cb()));
      resolve({ send: (id) => socket.write(frame({ id, service: 'Echo', method: 'echo', data: PAYLOAD })), onReply: (f) => (cb = f), close: () => socket.destroy() });
    });
  });

const openUdp = (port) => () =>
  new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    socket.bind(0, HOST, () => {
      let cb = () => undefined;
      socket.on('message', () => cb());
      resolve({ send: (id) => socket.send(frame({ id, service: 'Echo', method: 'echo', data: PAYLOAD }), port, HOST), onReply: (f) => (cb = f), close: () => socket.close() });
    });
  });

const openWs = (url, service = 'Echo', method = 'echo', data = PAYLOAD) => () =>
  new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.once('open', () => {
      let cb = () => undefined;
      ws.on('message', () => cb());
      resolve({ send: (id) => ws.send(JSON.stringify({ id, service, method, data })), onReply: (f) => (cb = f), close: () => ws.terminate() });
    });
  });

const openGrpc = (port) => {
  let n = 0;
  const json = (v) => Buffer.from(JSON.stringify(v));
  const parse = (b) => JSON.parse(b.toString('utf8'));
  const Ctor = grpc.makeGenericClientConstructor({ echo: { path: '/Echo/echo', requestStream: false, responseStream: false, requestSerialize: json, requestDeserialize: parse, responseSerialize: json, responseDeserialize: parse } }, 'Echo');
  return () =>
    new Promise((resolve) => {
      const client = new Ctor(`${HOST}:${port}`, grpc.credentials.createInsecure(), { 'grpc.fw_bench_channel': n++ });
      client.waitForReady(Date.now() + 10_000, () => {
        let cb = () => undefined;
        resolve({ send: () => client.echo(PAYLOAD, () => cb()), onReply: (f) => (cb = f), close: () => client.close() });
      });
    });
};

/** CreateUserRequest {name, email} in protobuf, written once (fields 1 and 2, length-delimited). */
function createUserBytes() {
  const field = (no, text) => {
    const bytes = Buffer.from(text);
    return Buffer.concat([Buffer.from([(no << 3) | 2, bytes.length]), bytes]);
  };
  return Buffer.concat([field(1, USER.name), field(2, USER.email)]);
}

/** Binary gRPC CreateUser calls on `grpcPath`; request bytes are prebuilt, replies are not decoded. */
const openCreateUser = (port, grpcPath) => {
  let n = 0;
  const identity = (b) => b;
  const bytes = createUserBytes();
  const Ctor = grpc.makeGenericClientConstructor({ createUser: { path: grpcPath, requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity } }, 'UserService');
  return () =>
    new Promise((resolve) => {
      const client = new Ctor(`${HOST}:${port}`, grpc.credentials.createInsecure(), { 'grpc.fw_bench_user_channel': n++ });
      client.waitForReady(Date.now() + 10_000, () => {
        let cb = () => undefined;
        resolve({ send: () => client.createUser(bytes, () => cb()), onReply: (f) => (cb = f), close: () => client.close() });
      });
    });
};

const SCENARIOS = [
  { transport: 'http', floor: 'node:http', kind: 'http', raw: (p, ms) => httpLoad(p, '/', ms), gw: (p, ms) => httpLoad(p, '/api/Echo/echo', ms) },
  { transport: 'websocket', floor: 'ws echo', kind: 'ws', raw: (p, ms) => inflightLoad(openWs(`ws://${HOST}:${p}`), ms), gw: (p, ms) => inflightLoad(openWs(`ws://${HOST}:${p}/ws`), ms) },
  { transport: 'grpc', floor: 'grpc-js', kind: 'grpc', raw: (p, ms) => inflightLoad(openGrpc(p), ms), gw: (p, ms) => inflightLoad(openGrpc(p), ms) },
  { transport: 'udp', floor: 'dgram echo', kind: 'udp', raw: (p, ms) => inflightLoad(openUdp(p), ms), gw: (p, ms) => inflightLoad(openUdp(p), ms) },
  { transport: 'tcp', floor: 'net echo', kind: 'tcp', raw: (p, ms) => inflightLoad(openTcp(p), ms), gw: (p, ms) => inflightLoad(openTcp(p), ms) },
  // Connect unary (JSON) against the gateway's own HTTP/JSON unary: two gateway processes, the same Echo service.
  { transport: 'connect', floor: 'gateway HTTP/JSON', kind: 'gateway', target: 0.9, raw: (p, ms) => httpLoad(p, '/api/Echo/echo', ms), gw: (p, ms) => httpLoad(p, '/Echo/echo', ms, CONNECT_HEADERS) },
  // Reference rows, not targets: floors that decode the JSON message and encode the reply, as the gateway must (and as the grpc-js floor's codec does).
  { transport: 'http', floor: 'node:http JSON echo', kind: 'http-json', reference: true, raw: (p, ms) => httpLoad(p, '/', ms), gw: (p, ms) => httpLoad(p, '/api/Echo/echo', ms) },
  { transport: 'udp', floor: 'dgram JSON echo', kind: 'udp-json', reference: true, raw: (p, ms) => inflightLoad(openUdp(p), ms), gw: (p, ms) => inflightLoad(openUdp(p), ms) },
  // Validated unary: createUser with user.proto's buf.validate rules (the "gateway" column) against the same call
  // from rule-free copies of its messages (the "floor" column); both strict-decode their input. Target: ≤ 3% fewer calls/s.
  { transport: 'http', floor: 'createUser without rules', kind: 'user-plain', gatewayKind: 'user-rules', validation: true, raw: (p, ms) => httpLoad(p, '/users', ms, undefined, USER), gw: (p, ms) => httpLoad(p, '/users', ms, undefined, USER) },
  // The same rules as an ajv route schema in Fastify (fw-gen's JSON Schema of CreateUserRequest): fw ≥ 1.2× Fastify.
  { transport: 'http', floor: 'Fastify + ajv, same rules', kind: 'fastify-ajv', gatewayKind: 'user-rules', validation: true, target: 1.2, raw: (p, ms) => httpLoad(p, '/users', ms, undefined, USER), gw: (p, ms) => httpLoad(p, '/users', ms, undefined, USER) },
  { transport: 'grpc', floor: 'createUser without rules', kind: 'user-plain', gatewayKind: 'user-rules', validation: true, raw: (p, ms) => inflightLoad(openCreateUser(p, '/plainuser.UserService/CreateUser'), ms), gw: (p, ms) => inflightLoad(openCreateUser(p, '/user.UserService/CreateUser'), ms) },
  // Typed proto3 JSON (a generated service, no rules): the node:http JSON echo as floor, and the baseline's own
  // runtime and fw-gen output beside when BENCH_BASELINE is set (BENCH_ONLY=typed for these rows alone).
  { transport: 'http', floor: 'node:http JSON echo', kind: 'http-json', gatewayKind: 'user-echo', typed: true, reference: true, raw: (p, ms) => httpLoad(p, '/', ms, undefined, TYPED_USER), gw: (p, ms) => httpLoad(p, '/users/echo', ms, undefined, TYPED_USER) },
  { transport: 'websocket', floor: 'ws JSON echo', kind: 'ws-json', gatewayKind: 'user-echo', typed: true, reference: true, raw: (p, ms) => inflightLoad(openWs(`ws://${HOST}:${p}`, 'userecho.UserEcho', 'Echo', TYPED_USER), ms), gw: (p, ms) => inflightLoad(openWs(`ws://${HOST}:${p}/ws`, 'userecho.UserEcho', 'Echo', TYPED_USER), ms) },
];

/** A started server (floor or gateway) as an interleave() subject, driven by `load(port, ms)`. */
async function subject(name, kind, load, env) {
  const { child, port } = await startServer(kind, env);
  return {
    name,
    child,
    async measure(ms) {
      const cpuBefore = cpuSeconds(child.pid);
      const started = Date.now();
      const result = await load(port, ms);
      const cpuAfter = cpuSeconds(child.pid);
      const calls = result.rps * ((Date.now() - started) / 1000);
      const cpu = cpuBefore === undefined || cpuAfter === undefined || calls === 0 ? NaN : ((cpuAfter - cpuBefore) * 1e6) / calls;
      return { rps: result.rps, cpu };
    },
  };
}

async function main() {
  pinLoadGenerator();
  // Servers run fw compiled, with the generated services they serve (../support/compiled-fw.js).
  compileFw([path.join(__dirname, '../../../generated'), path.join(__dirname, 'generated')]);
  // The baseline's servers get its compiled copy through FW_BENCH_DIST; server.js and the load are this checkout's.
  const baseline = process.env.BENCH_BASELINE ? { FW_BENCH_DIST: compileBaseline(process.env.BENCH_BASELINE) } : undefined;
  const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',') : undefined;
  const rows = [];
  for (const s of SCENARIOS) {
    if (only && !only.includes(s.transport) && !(s.validation && only.includes('validation')) && !(s.typed && only.includes('typed'))) continue;
    if (only && only.includes('validation') && !s.validation && !only.includes(s.transport)) continue;
    if (only && only.includes('typed') && !s.typed && !only.includes(s.transport)) continue;
    const subjects = [];
    try {
      subjects.push(await subject('floor', s.kind, s.raw), await subject('gateway', s.gatewayKind ?? 'gateway', s.gw));
      // The validated rows' gatewayKind serves this checkout's generated user.proto, which the baseline's copy does not
      // hold; the typed rows' kind is generated from test/bench/gateway/proto by the baseline's own fw-gen.
      const withBaseline = baseline !== undefined && (s.gatewayKind === undefined || s.typed === true);
      if (withBaseline) subjects.push(await subject('fw (baseline)', s.gatewayKind ?? 'gateway', s.gw, baseline));
      for (const x of subjects) await x.measure(WARMUP_MS).catch(() => undefined); // JIT warm-up, not counted
      const samples = await interleave(subjects, { passes: PASSES, sliceMs: SLICE_MS });
      rows.push({
        ...s,
        raw: medianOf(samples, 'floor'),
        gw: medianOf(samples, 'gateway'),
        ratio: pairedRatio(samples, 'gateway', 'floor'),
        rawCpu: medianOf(samples, 'floor', 'cpu'),
        gwCpu: medianOf(samples, 'gateway', 'cpu'),
        cpuRatio: pairedRatio(samples, 'floor', 'gateway', 'cpu'),
        ...(withBaseline && {
          base: medianOf(samples, 'fw (baseline)'),
          baseRatio: pairedRatio(samples, 'gateway', 'fw (baseline)'),
          baseCpu: medianOf(samples, 'fw (baseline)', 'cpu'),
          baseCpuRatio: pairedRatio(samples, 'fw (baseline)', 'gateway', 'cpu'),
        }),
      });
      const base = withBaseline ? `, fw (baseline) ${Math.round(rows.at(-1).base)}` : '';
      process.stdout.write(`${s.transport} (${s.floor}): floor ${Math.round(rows.at(-1).raw)}, gateway ${Math.round(rows.at(-1).gw)}${base} calls/s\n`);
    } finally {
      for (const x of subjects) await stopChild(x.child);
    }
  }
  console.log(`\ngateway unary echo (${PASSES} passes of ${SLICE_MS / 1000} s slices, floor and gateway up at once, order reversing each pass; ${CONNECTIONS} connections × ${INFLIGHT} in flight; HTTP ${CONNECTIONS * 4} autocannon connections; ${describePinning()})`);
  console.log('calls/s and CPU: medians over passes; ratios: medians over passes of the ratio within a pass\n');
  console.log('| transport | floor | floor calls/s | gateway calls/s | ratio | target | floor CPU µs/call | gateway CPU µs/call | CPU ratio |');
  console.log('|---|---|---:|---:|---:|---|---:|---:|---:|');
  const fmt = (v, digits = 0) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');
  for (const r of rows) {
    const goal = r.target ?? (r.validation ? VALIDATION_TARGET : TARGET);
    const target = r.reference ? 'reference' : `≥ ${goal}× ${r.ratio >= goal ? 'MET' : 'NOT MET'}`;
    console.log(`| ${r.transport} | ${r.floor} | ${fmt(r.raw)} | ${fmt(r.gw)} | ${fmt(r.ratio, 2)}× | ${target} | ${fmt(r.rawCpu, 1)} | ${fmt(r.gwCpu, 1)} | ${fmt(r.cpuRatio, 2)}× |`);
  }
  console.log('Reference rows: the floor also decodes the JSON message and encodes the reply (the work any JSON service does); the target is on the byte-echo floors above.');
  console.log('CPU ratio = floor CPU per call / gateway CPU per call (server process, from /proc).');
  console.log('Validated rows: both columns are gateways; "floor" serves createUser without rules, "gateway" the same call with user.proto\'s rules (≤ 3% overhead); the Fastify row serves the same rules as an ajv route schema (fw ≥ 1.2×).');
  if (baseline !== undefined) {
    console.log(`\nagainst the baseline (${process.env.BENCH_BASELINE}), the same passes: calls/s ratio fw / fw (baseline), medians over passes of the ratio within a pass; CPU ratio fw (baseline) CPU per call / fw CPU per call`);
    console.log('| transport | floor | fw (baseline) calls/s | fw calls/s | fw / fw (baseline) | fw (baseline) CPU µs/call | fw CPU µs/call | CPU ratio |');
    console.log('|---|---|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      if (r.base === undefined) continue;
      console.log(`| ${r.transport} | ${r.floor} | ${fmt(r.base)} | ${fmt(r.gw)} | ${fmt(r.baseRatio, 2)}× | ${fmt(r.baseCpu, 1)} | ${fmt(r.gwCpu, 1)} | ${fmt(r.baseCpuRatio, 2)}× |`);
    }
  }
  // Extra scenario files (e.g. the forwarding benchmark) run as their own processes.
  for (const file of fs.readdirSync(__dirname).sort()) {
    if (/^forwarding.*-run\.js$/.test(file) && !only) {
      console.log(`\n--- ${file} ---`);
      // Children inherit this process's single-core affinity: give the forwarding bench every core back.
      const all = `0-${(os.availableParallelism ? os.availableParallelism() : os.cpus().length) - 1}`;
      const [command, args] = PINNED ? ['taskset', ['-c', all, process.execPath, path.join(__dirname, file)]] : [process.execPath, [path.join(__dirname, file)]];
      spawnSync(command, args, { stdio: 'inherit', env: process.env });
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
