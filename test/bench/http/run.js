'use strict';
/**
 * HTTP benchmark: fw vs Fastify vs Express vs bare node:http, in one run.
 *
 *   npm run bench:http
 *   BENCH_DURATION=5 BENCH_ROUNDS=2 BENCH_CONNECTIONS=50 BENCH_ONLY=hello npm run bench:http
 *
 * Every scenario in scenarios/*.js (exporting {name, request, fw, fastify,
 * express, node}) is served by each framework in its own child process
 * (server.js); autocannon drives it from this process. fw runs from dist/, so
 * the script builds first (BENCH_SKIP_BUILD=1 skips that). Prints req/s and
 * the ratios fw/fastify and fw/node, plus the route-table/hello ratio.
 */
const { execFileSync, fork } = require('node:child_process');
const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { pinLoadGenerator, serverForkOptions, describePinning } = require('../support/cpu-pin');

const ROOT = join(__dirname, '..', '..', '..');
const FRAMEWORKS = ['fw', 'fastify', 'express', 'node'];
const DURATION = Number(process.env.BENCH_DURATION || 10);
const WARMUP = Number(process.env.BENCH_WARMUP || Math.min(3, Math.max(1, Math.round(DURATION / 3))));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
const PIPELINING = Number(process.env.BENCH_PIPELINING || 1);
const ONLY = process.env.BENCH_ONLY || '';
// Several rounds, each in a different framework order, keep the best of each:
// on a shared machine that removes most of the "who ran during the spike" bias.
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 1));

function build() {
  if (process.env.BENCH_SKIP_BUILD === '1') return;
  process.stdout.write('building dist/ ... ');
  try {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    process.stdout.write('done\n');
  } catch {
    // tsc still emits on type errors elsewhere in the tree; the HTTP runtime only needs its own files.
    process.stdout.write('finished with errors (see above); benchmarking the emitted dist/\n');
  }
}

function scenarioFiles() {
  const dir = join(__dirname, 'scenarios');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => join(dir, f))
    .filter((file) => ONLY === '' || file.includes(ONLY) || require(file).name.toLowerCase().includes(ONLY.toLowerCase()));
}

function startServer(framework, file) {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'server.js'), [framework, file], serverForkOptions({ cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${framework} server did not start within 30 s`));
    }, 30_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve({ child, port: message.port });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${framework} server exited with code ${code}`));
    });
  });
}

function load(port, request, duration) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}${request.path}`,
        method: request.method,
        body: request.body,
        headers: request.headers,
        connections: CONNECTIONS,
        pipelining: PIPELINING,
        duration,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

function cpuOf(child) {
  return new Promise((resolve) => {
    const onMessage = (message) => {
      if (message && message.cpu) {
        child.off('message', onMessage);
        resolve(message.cpu.user + message.cpu.system);
      }
    };
    child.on('message', onMessage);
    child.send('cpu');
  });
}

async function measure(framework, file, request) {
  const { child, port } = await startServer(framework, file);
  try {
    // Check the answer once, so a broken server cannot post a great number.
    const check = await fetch(`http://127.0.0.1:${port}${request.path}`, { method: request.method, body: request.body, headers: request.headers });
    if (check.status !== 200) throw new Error(`${framework}: ${request.method} ${request.path} answered ${check.status}`);
    await check.text();
    if (WARMUP > 0) await load(port, request, WARMUP);
    const cpuBefore = await cpuOf(child);
    const result = await load(port, request, DURATION);
    const cpuAfter = await cpuOf(child);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${framework}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { rps: result.requests.average, cpuPerRequest: (cpuAfter - cpuBefore) / Math.max(1, result.requests.total) };
  } finally {
    child.kill();
  }
}

function pad(text, width) {
  return String(text).padStart(width);
}

async function main() {
  build();
  pinLoadGenerator();
  const rows = [];
  for (const file of scenarioFiles()) {
    const scenario = require(file);
    const row = { name: scenario.name, rps: {}, cpu: {} };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? FRAMEWORKS : [...FRAMEWORKS].reverse();
      for (const framework of order) {
        if (typeof scenario[framework] !== 'function') continue;
        process.stdout.write(`${scenario.name} — ${framework} ... `);
        const { rps, cpuPerRequest } = await measure(framework, file, scenario.request);
        row.rps[framework] = Math.max(row.rps[framework] ?? 0, rps);
        row.cpu[framework] = Math.min(row.cpu[framework] ?? Infinity, cpuPerRequest);
        process.stdout.write(`${Math.round(rps)} req/s, ${cpuPerRequest.toFixed(1)} µs CPU/req\n`);
      }
    }
    rows.push(row);
  }
  const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : '-');
  console.log(`\nduration ${DURATION}s per run, best of ${ROUNDS} round(s), ${CONNECTIONS} connections, pipelining ${PIPELINING}, node ${process.version}, ${describePinning()}\n`);
  const header = `${'scenario'.padEnd(40)}${FRAMEWORKS.map((f) => pad(f, 10)).join('')}${pad('fw/fastify', 12)}${pad('fw/node', 10)}`;
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const row of rows) {
    const cells = FRAMEWORKS.map((f) => pad(row.rps[f] === undefined ? '-' : Math.round(row.rps[f]), 10)).join('');
    console.log(`${row.name.padEnd(40)}${cells}${pad(ratio(row.rps.fw, row.rps.fastify), 12)}${pad(ratio(row.rps.fw, row.rps.node), 10)}`);
  }
  console.log(`\nserver CPU µs per request (lower is better; steadier than req/s on a busy machine)\n`);
  const cpuHeader = `${'scenario'.padEnd(40)}${FRAMEWORKS.map((f) => pad(f, 10)).join('')}${pad('fastify/fw', 12)}${pad('node/fw', 10)}`;
  console.log(cpuHeader);
  console.log('-'.repeat(cpuHeader.length));
  for (const row of rows) {
    const cells = FRAMEWORKS.map((f) => pad(row.cpu[f] === undefined ? '-' : row.cpu[f].toFixed(1), 10)).join('');
    console.log(`${row.name.padEnd(40)}${cells}${pad(ratio(row.cpu.fastify, row.cpu.fw), 12)}${pad(ratio(row.cpu.node, row.cpu.fw), 10)}`);
  }
  const hello = rows.find((r) => /hello/i.test(r.name));
  const table = rows.find((r) => /route table/i.test(r.name));
  if (hello && table) console.log(`\nfw route table / fw hello: ${ratio(table.rps.fw, hello.rps.fw)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
