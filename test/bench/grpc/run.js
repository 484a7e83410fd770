/**
 * gRPC benchmark: fw's gRPC server vs a plain grpc-js server with the same
 * proto-loader codecs, each in its own child process, load from this process
 * (grpc-js clients over a few channels, many calls in flight).
 *
 *   npm run bench:grpc
 *   BENCH_DURATION=5 BENCH_CHANNELS=4 BENCH_CONCURRENCY=64 BENCH_STREAM_LENGTH=500 BENCH_ROUNDS=2 npm run bench:grpc
 *
 * Prints unary calls/s and server-streaming messages/s for both and the
 * fw/grpc-js ratio (target ≥ 0.95), plus the same work per CPU-second of the
 * server process (from /proc), which stays comparable on a busy machine.
 * Rounds alternate the order of the two servers; the best round of each is
 * reported.
 */
'use strict';
const path = require('node:path');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');

const DURATION_MS = Number(process.env.BENCH_DURATION || 5) * 1000;
const CHANNELS = Number(process.env.BENCH_CHANNELS || 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 64);
const STREAM_LENGTH = Number(process.env.BENCH_STREAM_LENGTH || 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 1);

const definition = loader.loadSync(path.join(__dirname, 'bench.proto'), { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true });
const Bench = grpc.loadPackageDefinition(definition).bench.Bench;

function startServer(kind) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'server.js'), kind], { stdio: ['ignore', 'pipe', 'inherit'] });
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`${kind} server did not start within 20 s`)), 20_000);
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

function clients(port) {
  const out = [];
  for (let i = 0; i < CHANNELS; i += 1) {
    // A distinct channel option per client keeps grpc-js from sharing one subchannel.
    out.push(new Bench(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.fw_bench_channel': i }));
  }
  return out;
}

/** Runs `worker` CONCURRENCY times in parallel until the deadline; returns units done per second. */
async function load(worker, durationMs) {
  let done = 0;
  const started = Date.now();
  const deadline = started + durationMs;
  const loop = async (i) => {
    while (Date.now() < deadline) {
      // Not `done += await …`: that reads `done` before the await and loses the other loops' counts.
      const units = await worker(i);
      done += units;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => loop(i)));
  return (done * 1000) / (Date.now() - started);
}

function unary(pool) {
  const request = { id: '42', name: 'bench', count: 1 };
  return (i) =>
    new Promise((resolve, reject) => {
      pool[i % pool.length].Echo(request, (error) => (error ? reject(error) : resolve(1)));
    });
}

function streaming(pool) {
  const request = { count: STREAM_LENGTH };
  return (i) =>
    new Promise((resolve, reject) => {
      let n = 0;
      const call = pool[i % pool.length].Stream(request);
      call.on('data', () => {
        n += 1;
      });
      call.on('error', reject);
      call.on('end', () => resolve(n));
    });
}

/** CPU seconds (user + system) used so far by process `pid` (Linux /proc; 0 elsewhere). */
function cpuSeconds(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Rate of `worker` units/s and the server's CPU µs per unit (robust when the machine is busy). */
async function scenario(child, worker) {
  await load(worker, Math.min(1000, DURATION_MS / 4)); // warm-up
  const cpuBefore = cpuSeconds(child.pid);
  const started = Date.now();
  const rate = await load(worker, DURATION_MS);
  const units = (rate * (Date.now() - started)) / 1000;
  const cpuMicros = units > 0 ? ((cpuSeconds(child.pid) - cpuBefore) * 1e6) / units : 0;
  return { rate, cpuMicros };
}

async function measure(kind) {
  const { child, port } = await startServer(kind);
  const pool = clients(port);
  try {
    const u = await scenario(child, unary(pool));
    const s = await scenario(child, streaming(pool));
    return { unaryRate: u.rate, unaryCpu: u.cpuMicros, streamRate: s.rate, streamCpu: s.cpuMicros };
  } finally {
    for (const c of pool) c.close();
    child.kill();
  }
}

async function main() {
  const fresh = () => ({ unaryRate: 0, streamRate: 0, unaryCpu: Infinity, streamCpu: Infinity });
  const best = { fw: fresh(), 'grpc-js': fresh() };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? ['fw', 'grpc-js'] : ['grpc-js', 'fw'];
    for (const name of order) {
      const result = await measure(name === 'fw' ? 'fw' : 'plain');
      best[name].unaryRate = Math.max(best[name].unaryRate, result.unaryRate);
      best[name].streamRate = Math.max(best[name].streamRate, result.streamRate);
      best[name].unaryCpu = Math.min(best[name].unaryCpu, result.unaryCpu);
      best[name].streamCpu = Math.min(best[name].streamCpu, result.streamCpu);
      console.error(
        `round ${round + 1} ${name}: unary ${result.unaryRate.toFixed(0)}/s (${result.unaryCpu.toFixed(1)} µs CPU/call), ` +
          `stream ${result.streamRate.toFixed(0)} msg/s (${result.streamCpu.toFixed(2)} µs CPU/msg)`,
      );
    }
  }
  const rows = [
    ['unary calls/s', best.fw.unaryRate, best['grpc-js'].unaryRate],
    [`server-streaming msgs/s (${STREAM_LENGTH}/call)`, best.fw.streamRate, best['grpc-js'].streamRate],
    // Inverted so that higher is better here too: work per server CPU second.
    ['unary calls per server CPU-second', 1e6 / best.fw.unaryCpu, 1e6 / best['grpc-js'].unaryCpu],
    ['streamed msgs per server CPU-second', 1e6 / best.fw.streamCpu, 1e6 / best['grpc-js'].streamCpu],
  ];
  console.log(`\ngRPC benchmark: ${DURATION_MS / 1000}s per scenario, ${CHANNELS} channels, ${CONCURRENCY} calls in flight, ${ROUNDS} round(s)\n`);
  console.log('| scenario | fw | grpc-js | fw / grpc-js |');
  console.log('|---|---:|---:|---:|');
  for (const [name, fw, plain] of rows) console.log(`| ${name} | ${fw.toFixed(0)} | ${plain.toFixed(0)} | ${(fw / plain).toFixed(3)} |`);
  console.log('\nTarget: fw / grpc-js ≥ 0.95. The CPU rows stay meaningful when other processes compete for the cores.');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
