'use strict';
/**
 * HTTP benchmark: fw vs Fastify vs Express vs bare node:http, in one run.
 *
 *   npm run bench:http
 *   BENCH_DURATION=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50 BENCH_ONLY=hello,table npm run bench:http
 *
 * Every scenario in scenarios/*.js (exporting {name, request, fw, fastify,
 * express, node}) is served by each framework in its own child process
 * (server.js); autocannon drives it from this process. fw runs from dist/, so
 * the script builds first (BENCH_SKIP_BUILD=1 skips that). Prints req/s and
 * the ratios fw/fastify and fw/node, plus the route-table/hello ratio; see
 * ROUNDS below for how rounds are combined.
 */
const { execFileSync, fork } = require('node:child_process');
const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { pinLoadGenerator, serverForkOptions, describePinning } = require('../support/cpu-pin');

const ROOT = join(__dirname, '..', '..', '..');
const FRAMEWORKS = ['fw', 'fastify', 'express', 'node'];
const DURATION = Number(process.env.BENCH_DURATION || 5);
const WARMUP = Number(process.env.BENCH_WARMUP || Math.min(3, Math.max(1, Math.round(DURATION / 3))));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
const PIPELINING = Number(process.env.BENCH_PIPELINING || 1);
const ONLY = (process.env.BENCH_ONLY || '').split(',').filter(Boolean);
// Several rounds, each running every scenario and framework in alternating
// order; ratios are taken within a round (neighbouring runs) and the median
// over rounds is reported, so a machine whose speed drifts over minutes (a
// shared VM here moved by ±20%) biases neither side.
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 3));

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
    .filter((file) => ONLY.length === 0 || ONLY.some((only) => file.includes(only) || require(file).name.toLowerCase().includes(only.toLowerCase())));
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

function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main() {
  build();
  pinLoadGenerator();
  const scenarios = scenarioFiles().map((file) => ({ file, scenario: require(file) }));
  // samples[name][framework] = [{ rps, cpu }, …], one per round.
  const samples = new Map(scenarios.map(({ scenario }) => [scenario.name, {}]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const { file, scenario } of scenarios) {
      const order = round % 2 === 0 ? FRAMEWORKS : [...FRAMEWORKS].reverse();
      for (const framework of order) {
        if (typeof scenario[framework] !== 'function') continue;
        process.stdout.write(`round ${round + 1}: ${scenario.name} — ${framework} ... `);
        const { rps, cpuPerRequest } = await measure(framework, file, scenario.request);
        (samples.get(scenario.name)[framework] ??= []).push({ rps, cpu: cpuPerRequest });
        process.stdout.write(`${Math.round(rps)} req/s, ${cpuPerRequest.toFixed(1)} µs CPU/req\n`);
      }
    }
  }
  const at = (name, framework, round) => samples.get(name)?.[framework]?.[round]?.rps;
  /** Median over rounds of a ratio taken within each round (neighbouring runs, so machine drift cancels). */
  const pairedRatio = (numerator, denominator) => median(Array.from({ length: ROUNDS }, (_, r) => numerator(r) / denominator(r)));
  const fmt = (v) => (v === undefined ? '-' : v.toFixed(2));
  console.log(`\nduration ${DURATION}s per run, ${ROUNDS} round(s) (each round runs every scenario and framework, order alternating), ${CONNECTIONS} connections, pipelining ${PIPELINING}, node ${process.version}, ${describePinning()}`);
  console.log('req/s: median over rounds; ratios: median over rounds of the ratio within each round\n');
  const header = `${'scenario'.padEnd(40)}${FRAMEWORKS.map((f) => pad(f, 10)).join('')}${pad('fw/fastify', 12)}${pad('fw/node', 10)}`;
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const { scenario } of scenarios) {
    const name = scenario.name;
    const cells = FRAMEWORKS.map((f) => {
      const m = median((samples.get(name)[f] ?? []).map((x) => x.rps));
      return pad(m === undefined ? '-' : Math.round(m), 10);
    }).join('');
    const vsFastify = pairedRatio((r) => at(name, 'fw', r), (r) => at(name, 'fastify', r));
    const vsNode = pairedRatio((r) => at(name, 'fw', r), (r) => at(name, 'node', r));
    console.log(`${name.padEnd(40)}${cells}${pad(fmt(vsFastify), 12)}${pad(fmt(vsNode), 10)}`);
  }
  console.log(`\nserver CPU µs per request, median over rounds (lower is better)\n`);
  const cpuHeader = `${'scenario'.padEnd(40)}${FRAMEWORKS.map((f) => pad(f, 10)).join('')}${pad('fastify/fw', 12)}${pad('node/fw', 10)}`;
  console.log(cpuHeader);
  console.log('-'.repeat(cpuHeader.length));
  for (const { scenario } of scenarios) {
    const cpu = (f) => median((samples.get(scenario.name)[f] ?? []).map((x) => x.cpu));
    const cells = FRAMEWORKS.map((f) => pad(cpu(f) === undefined ? '-' : cpu(f).toFixed(1), 10)).join('');
    const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : '-');
    console.log(`${scenario.name.padEnd(40)}${cells}${pad(ratio(cpu('fastify'), cpu('fw')), 12)}${pad(ratio(cpu('node'), cpu('fw')), 10)}`);
  }
  const hello = scenarios.find(({ scenario }) => /hello/i.test(scenario.name));
  const table = scenarios.find(({ scenario }) => /route table/i.test(scenario.name));
  if (hello && table) {
    const fwRatio = pairedRatio((r) => at(table.scenario.name, 'fw', r), (r) => at(hello.scenario.name, 'fw', r));
    const nodeRatio = pairedRatio((r) => at(table.scenario.name, 'node', r), (r) => at(hello.scenario.name, 'node', r));
    console.log(`\nroute table / hello: fw ${fmt(fwRatio)} (bare node:http ${fmt(nodeRatio)})`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
