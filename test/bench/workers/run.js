#!/usr/bin/env node
/**
 * Workers benchmark: a CPU-bound handler (about 1 ms of work per call) over
 * HTTP/JSON and gRPC, served by 1 worker and then by 2 (`workers: n`, the
 * same entry script, one port). Target on a 2-core machine: 2 workers serve
 * ≥ 1.6× the calls/s of 1.
 *
 *   npm run bench:workers
 *   BENCH_SLICE=1 BENCH_PASSES=1 npm run bench:workers      (a short run, to see it work)
 *
 * The load generator is kept light so it leaves the cores to the workers:
 * autocannon with BENCH_CONNECTIONS (default 4) connections for HTTP, and
 * h2load (nghttp2-client, written in C) with 8 connections × 2 streams for
 * gRPC (a Node HTTP/2 client when h2load is missing): the kernel spreads
 * connections, not calls, over the workers' reusePort sockets, and an HTTP/2
 * connection's calls all go to one worker, so two connections land on the
 * same worker half the time; eight give each worker several. Each pass measures 1
 * and 2 workers for BENCH_SLICE seconds each, per protocol; figures are
 * medians over BENCH_PASSES passes. Run it on a quiet machine.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fork } = require('node:child_process');
const autocannon = require('autocannon');
const { h2Load, hasH2load } = require('../grpc/h2-load');

const PASSES = Math.max(1, Number(process.env.BENCH_PASSES || 5));
const SLICE_S = Math.max(1, Number(process.env.BENCH_SLICE || 5));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 4);
const GRPC_CONNECTIONS = Number(process.env.BENCH_GRPC_CONNECTIONS || 8);
const GRPC_STREAMS = Number(process.env.BENCH_GRPC_STREAMS || 2);
const TARGET = 1.6;

function start(workers) {
  const child = fork(path.join(__dirname, 'server.js'), [], { env: { ...process.env, BENCH_WORKERS: String(workers) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bench server did not listen within 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
    child.once('message', (m) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ port: m.port, stop: () => new Promise((done) => { child.once('exit', done); child.kill('SIGTERM'); }) });
    });
  });
}

async function http(port, seconds) {
  const result = await autocannon({ url: `http://127.0.0.1:${port}/api/Work/burn`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', connections: CONNECTIONS, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`HTTP: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.total / seconds;
}

const GRPC_REQUEST = (() => {
  const body = Buffer.from('{}');
  const frame = Buffer.alloc(5 + body.length);
  frame.writeUInt32BE(body.length, 1);
  body.copy(frame, 5);
  const file = path.join(os.tmpdir(), `fw-bench-workers-${process.pid}.bin`);
  fs.writeFileSync(file, frame);
  return file;
})();

async function grpc(port, seconds) {
  const result = await h2Load({ port, path: '/Work/burn', file: GRPC_REQUEST, ms: seconds * 1000, connections: GRPC_CONNECTIONS, streams: GRPC_STREAMS, useH2load: hasH2load() });
  if (result.errors > 0) throw new Error(`gRPC: ${result.errors} failed calls`);
  return result.rps;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  console.log(`bench:workers: ${os.availableParallelism()} cores, ${PASSES} pass(es) of ${SLICE_S} s per row, HTTP ${CONNECTIONS} connections, gRPC ${GRPC_CONNECTIONS}×${GRPC_STREAMS} streams${hasH2load() ? ' (h2load)' : ' (Node client)'}`);
  const rows = { http: { 1: [], 2: [] }, grpc: { 1: [], 2: [] } };
  for (let pass = 0; pass < PASSES; pass++) {
    for (const workers of [1, 2]) {
      const server = await start(workers);
      try {
        // Warm-up: JIT and connections.
        await http(server.port, 1);
        rows.http[workers].push(await http(server.port, SLICE_S));
        rows.grpc[workers].push(await grpc(server.port, SLICE_S));
      } finally {
        await server.stop();
      }
    }
  }
  let ok = true;
  for (const protocol of ['http', 'grpc']) {
    const one = median(rows[protocol][1]);
    const two = median(rows[protocol][2]);
    const ratio = two / one;
    ok &&= ratio >= TARGET;
    console.log(`${protocol.padEnd(5)} 1 worker ${one.toFixed(0).padStart(6)} calls/s   2 workers ${two.toFixed(0).padStart(6)} calls/s   ratio ${ratio.toFixed(2)}× (target ≥ ${TARGET}×)`);
  }
  fs.rmSync(GRPC_REQUEST, { force: true });
  if (!ok) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
