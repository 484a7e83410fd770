#!/usr/bin/env node
'use strict';
// npm run bench:startup — cold start of `require('fw')` against
// `require('fastify')` (and ESM `import` of each) in one run. Every sample is
// a fresh `node` process; the subjects take turns, the order reversing on each
// pass, so neighbouring samples saw the same machine. Two figures per subject:
//   load  the time the require/import itself takes inside the child (hrtime
//         around it), the part a framework controls;
//   wall  the child's whole run as the parent saw it (Node's own boot included).
// A ratio is taken per pass and the median over passes reported.
// Target: fw ≤ Fastify (ratio ≤ 1) for `require` and for `import`.
// BENCH_RUNS (default 40) passes; BENCH_FW_ROOT=dir times another build of fw
// (a folder with package.json, dist/ and node_modules/) against the same Fastify.
const { spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { median } = require('../support/interleave');
const { serverCommand, PINNED } = require('../support/cpu-pin');

const repo = path.resolve(__dirname, '..', '..', '..');
const fwRoot = path.resolve(process.env.BENCH_FW_ROOT ?? repo);
const runs = Math.max(3, Math.min(500, Number(process.env.BENCH_RUNS ?? 40)));

// The package entry is dist/: build this checkout's first (a stale dist/ times old code),
// unless BENCH_SKIP_BUILD=1; another BENCH_FW_ROOT is built only when it has no dist/.
const skipBuild = process.env.BENCH_SKIP_BUILD === '1' || (fwRoot !== repo && fs.existsSync(path.join(fwRoot, 'dist', 'runtime', 'index.js')));
if (!skipBuild) {
  process.stdout.write('building dist/ (npm run build)\n');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: fwRoot, stdio: 'inherit' });
}

/** Child code: time loading `name` and print the milliseconds. */
function cjs(name) {
  return `const t=process.hrtime.bigint();require(${JSON.stringify(name)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
}
function esm(name) {
  return `const t=process.hrtime.bigint();await import(${JSON.stringify(name)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
}

const subjects = [
  { name: "require('fw')", args: ['-e', cjs('fw')] },
  { name: "require('fastify')", args: ['-e', cjs('fastify')] },
  { name: "import 'fw'", args: ['--input-type=module', '-e', esm('fw')] },
  { name: "import 'fastify'", args: ['--input-type=module', '-e', esm('fastify')] },
];
const pairs = [
  ["require('fw')", "require('fastify')"],
  ["import 'fw'", "import 'fastify'"],
];

function sample(subject) {
  const [cmd, args] = serverCommand(subject.args);
  const start = process.hrtime.bigint();
  const result = spawnSync(cmd, args, { cwd: fwRoot, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const load = Number(result.stdout);
  if (result.status !== 0 || !Number.isFinite(load)) {
    process.stderr.write(`${subject.name} failed (exit ${result.status}):\n${result.stderr}\n`);
    process.exit(1);
  }
  return { load, wall };
}

const samples = new Map(subjects.map((s) => [s.name, []]));
for (const s of subjects) sample(s); // warm the file cache, not counted
for (let pass = 0; pass < runs; pass++) {
  const order = pass % 2 === 0 ? subjects : [...subjects].reverse();
  for (const s of order) samples.get(s.name)[pass] = sample(s);
}

const pad = (v, n) => String(v).padEnd(n);
const ms = (v) => `${v.toFixed(1)} ms`;
const of = (name, key) => median(samples.get(name).map((x) => x[key]));
const ratio = (a, b, key) => median(samples.get(a).map((x, i) => x[key] / samples.get(b)[i][key]));

process.stdout.write(`\ncold start, ${runs} interleaved passes, medians; ${PINNED ? 'every child on core 0' : 'no CPU pinning'}; fw from ${path.relative(process.cwd(), fwRoot) || '.'}\n`);
process.stdout.write(`${pad('subject', 22)}${pad('load', 12)}wall\n`);
for (const s of subjects) process.stdout.write(`${pad(s.name, 22)}${pad(ms(of(s.name, 'load')), 12)}${ms(of(s.name, 'wall'))}\n`);
let ok = true;
process.stdout.write(`\n${pad('ratio', 40)}${pad('load', 8)}${pad('wall', 8)}target\n`);
for (const [a, b] of pairs) {
  const load = ratio(a, b, 'load');
  const wall = ratio(a, b, 'wall');
  const met = load <= 1;
  ok &&= met;
  process.stdout.write(`${pad(`${a} / ${b}`, 40)}${pad(load.toFixed(2), 8)}${pad(wall.toFixed(2), 8)}≤ 1.00 ${met ? 'met' : 'MISSED'}\n`);
}
process.exitCode = ok ? 0 : 1;
