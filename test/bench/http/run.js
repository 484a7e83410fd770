'use strict';
/**
 * HTTP benchmark: fw vs Fastify vs Express vs bare node:http, in one run.
 *
 *   npm run bench:http
 *   BENCH_ROUNDS=2 BENCH_PASSES=5 BENCH_SLICE=1 BENCH_REWARM=0.5 BENCH_CONNECTIONS=50 BENCH_ONLY=hello,table npm run bench:http
 *
 * Every scenario in scenarios/*.js (exporting {name, request, fw, fastify,
 * express, node}, and optionally a `group` name) is served by each framework
 * in its own child process (server.js); autocannon drives it from this
 * process. fw runs from dist/, so the script builds first (BENCH_SKIP_BUILD=1
 * skips that).
 *
 * The run is BENCH_ROUNDS rounds; in each, every scenario group in turn gets
 * fresh servers, fw, Fastify and node:http side by side (Express apart, see
 * SEPARATE_FRAMEWORKS), each warmed BENCH_WARMUP seconds as soon as it is up,
 * which then take the load in turn, a slice of BENCH_SLICE
 * seconds each, for BENCH_PASSES passes, each slice right after BENCH_REWARM
 * seconds of uncounted load (../support/interleave.js says why). Fresh,
 * short-lived servers because on the shared VM this was built on a server
 * process, any of them, can drop to ~75% of its speed for good after a minute
 * or two of life, at a random moment (docs/architecture.md, "Performance"): a run
 * that kept one process per framework for ten minutes measured which process
 * had been unlucky. Samples of all rounds are pooled.
 *
 * Prints req/s (median over all passes), the ratios fw/fastify and fw/node,
 * and the route-table/hello ratio (the two scenarios share a group), each the
 * median over passes of the ratio within one pass; and the server's CPU µs
 * per request.
 */
const { execFileSync, fork } = require('node:child_process');
const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { pinLoadGenerator, serverForkOptions, describePinning } = require('../support/cpu-pin');
const { interleave, pairedRatio, medianOf } = require('../support/interleave');
const { stopChild } = require('../support/stop-child');

const ROOT = join(__dirname, '..', '..', '..');
const FRAMEWORKS = ['fw', 'fastify', 'express', 'node'];
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 2));
const PASSES = Math.max(1, Number(process.env.BENCH_PASSES || 5));
const SLICE = Number(process.env.BENCH_SLICE || 1);
const REWARM = Number(process.env.BENCH_REWARM ?? 0.5);
const WARMUP = Number(process.env.BENCH_WARMUP || 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
const PIPELINING = Number(process.env.BENCH_PIPELINING || 1);
const ONLY = (process.env.BENCH_ONLY || '').split(',').filter(Boolean);

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

/** A started server for one framework and scenario, as an interleave() subject. */
async function subject(framework, file, request, scenarioName) {
  const { child, port } = await startServer(framework, file);
  // Check the answer once, so a broken server cannot post a great number.
  const check = await fetch(`http://127.0.0.1:${port}${request.path}`, { method: request.method, body: request.body, headers: request.headers });
  if (check.status !== 200) throw new Error(`${framework}: ${request.method} ${request.path} answered ${check.status}`);
  await check.text();
  return {
    name: `${scenarioName}|${framework}`,
    child,
    async measure(ms) {
      const cpuBefore = await cpuOf(child);
      const result = await load(port, request, ms / 1000);
      const cpuAfter = await cpuOf(child);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${framework}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      return { rps: result.requests.average, cpu: (cpuAfter - cpuBefore) / Math.max(1, result.requests.total) };
    },
  };
}

function pad(text, width) {
  return String(text).padStart(width);
}

/** Scenarios that share a `group` run side by side (the route-table/hello ratio needs its two in one group). */
function groupsOf(scenarios) {
  const groups = new Map();
  for (const entry of scenarios) {
    const key = entry.scenario.group ?? entry.scenario.name;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(entry);
  }
  return [...groups.values()];
}

/**
 * Express takes its turns apart from the others: it is no target's peer, and
 * its slices would stretch the idle gap between the others' slices past the
 * ~8 s after which V8's memory reducer runs (interleave.js, docs/http.md).
 */
const SEPARATE_FRAMEWORKS = [['fw', 'fastify', 'node'], ['express']];

/** One round of one group: fresh servers, each warmed as soon as it is up, then interleaved passes; samples appended. */
async function runGroup(group, frameworks, round, samples) {
  const subjects = [];
  try {
    for (const { file, scenario } of group) {
      for (const framework of frameworks) {
        if (typeof scenario[framework] !== 'function') continue;
        const s = await subject(framework, file, scenario.request, scenario.name);
        subjects.push(s);
        if (WARMUP > 0) await s.measure(WARMUP * 1000);
      }
    }
    const groupSamples = await interleave(subjects, {
      passes: PASSES,
      sliceMs: SLICE * 1000,
      rewarmMs: REWARM * 1000,
      onPass(pass, all) {
        const line = group.map(({ scenario }) => {
          const rps = (f) => all.get(`${scenario.name}|${f}`)?.[pass]?.rps;
          return `${scenario.name.split(',')[0]}: ${frameworks.map((f) => (rps(f) === undefined ? '-' : Math.round(rps(f) / 100) / 10 + 'k')).join(' / ')}`;
        });
        console.log(`round ${round + 1}/${ROUNDS} pass ${pass + 1}/${PASSES} (${frameworks.join(' / ')} req/s) ${line.join('; ')}`);
      },
    });
    for (const [name, list] of groupSamples) samples.set(name, [...(samples.get(name) ?? []), ...list]);
  } finally {
    await Promise.all(subjects.map((s) => stopChild(s.child)));
  }
}

async function main() {
  build();
  pinLoadGenerator();
  const scenarios = scenarioFiles().map((file) => ({ file, scenario: require(file) }));
  const samples = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const group of groupsOf(scenarios)) {
      for (const frameworks of SEPARATE_FRAMEWORKS) await runGroup(group, frameworks, round, samples);
    }
  }
  report(scenarios, samples);
}

function report(scenarios, samples) {
  const key = (name, framework) => `${name}|${framework}`;
  const fmt = (v) => (v === undefined ? '-' : v.toFixed(2));
  console.log(`\n${ROUNDS} rounds × ${PASSES} passes of ${SLICE} s slices per server (fresh servers per round and scenario group, order reversing each pass), each after ${REWARM} s uncounted re-warm, warm-up ${WARMUP} s, ${CONNECTIONS} connections, pipelining ${PIPELINING}, node ${process.version}, ${describePinning()}`);
  console.log('req/s: median over all passes; ratios: median over all passes of the ratio within each pass\n');
  const header = `${'scenario'.padEnd(40)}${FRAMEWORKS.map((f) => pad(f, 10)).join('')}${pad('fw/fastify', 12)}${pad('fw/node', 10)}`;
  console.log(header);
  console.log('-'.repeat(header.length));
  for (const { scenario } of scenarios) {
    const name = scenario.name;
    const cells = FRAMEWORKS.map((f) => {
      const m = medianOf(samples, key(name, f));
      return pad(m === undefined ? '-' : Math.round(m), 10);
    }).join('');
    console.log(`${name.padEnd(40)}${cells}${pad(fmt(pairedRatio(samples, key(name, 'fw'), key(name, 'fastify'))), 12)}${pad(fmt(pairedRatio(samples, key(name, 'fw'), key(name, 'node'))), 10)}`);
  }
  console.log(`\nserver CPU µs per request, median over passes (lower is better)\n`);
  const cpuHeader = `${'scenario'.padEnd(40)}${FRAMEWORKS.map((f) => pad(f, 10)).join('')}${pad('fastify/fw', 12)}${pad('node/fw', 10)}`;
  console.log(cpuHeader);
  console.log('-'.repeat(cpuHeader.length));
  for (const { scenario } of scenarios) {
    const cpu = (f) => medianOf(samples, key(scenario.name, f), 'cpu');
    const cells = FRAMEWORKS.map((f) => pad(cpu(f) === undefined ? '-' : cpu(f).toFixed(1), 10)).join('');
    const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : '-');
    console.log(`${scenario.name.padEnd(40)}${cells}${pad(ratio(cpu('fastify'), cpu('fw')), 12)}${pad(ratio(cpu('node'), cpu('fw')), 10)}`);
  }
  const hello = scenarios.find(({ scenario }) => /hello/i.test(scenario.name));
  const table = scenarios.find(({ scenario }) => /route table/i.test(scenario.name));
  if (hello && table) {
    const ratio = (f) => fmt(pairedRatio(samples, key(table.scenario.name, f), key(hello.scenario.name, f)));
    console.log(`\nroute table / hello: fw ${ratio('fw')} (fastify ${ratio('fastify')}, bare node:http ${ratio('node')})`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
