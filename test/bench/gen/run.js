#!/usr/bin/env node
'use strict';
// npm run bench:gen — fw-gen against plain `buf generate` + ts-proto (same
// options, same inputs) in one run, on proto/ and on a synthetic tree of 50
// files with 200 services; then `fw-gen --check` on the up-to-date tree.
// Targets: fw-gen ≤ 1.5× plain, --check ≤ 2× plain. Reports medians.
// BENCH_RUNS (default 5) runs per scenario; BENCH_FILES / BENCH_SERVICES
// resize the synthetic tree; BENCH_ONLY=small or BENCH_ONLY=large runs one
// scenario; BENCH_FW_GEN=path/to/fw-gen.js times another build of the CLI
// (e.g. a copy of an older dist/) against the same baseline.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { writeFixture } = require('./fixture');

const root = path.resolve(__dirname, '..', '..', '..');
const fwGen = path.resolve(process.env.BENCH_FW_GEN ?? path.join(root, 'bin', 'fw-gen.js'));
const runs = Math.max(1, Math.min(50, Number(process.env.BENCH_RUNS ?? 5)));
const files = Number(process.env.BENCH_FILES ?? 50);
const servicesPerFile = Math.max(1, Math.round(Number(process.env.BENCH_SERVICES ?? 200) / files));

function must(result, what) {
  if (result.error || result.status !== 0) {
    process.stderr.write(`${what} failed (${result.status}):\n${result.stderr ?? ''}${result.stdout ?? ''}\n`);
    process.exit(1);
  }
}

// CPU time of waited-for children (user + system, all descendants), from
// /proc/self/stat on Linux: far steadier than wall clock on a shared machine.
const TICK_MS = 1000 / 100;
function childCpuMs() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
  } catch {
    return NaN;
  }
}

function time(cmd, args, cwd) {
  const cpu0 = childCpuMs();
  const start = process.hrtime.bigint();
  const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { ms, cpu: childCpuMs() - cpu0, result };
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// Build the CLI once if dist/ lacks it (bin/fw-gen.js runs dist/cli/main.js).
const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
if (!fs.existsSync(path.join(root, 'dist', 'cli', 'main.js'))) must(spawnSync(process.execPath, [tsc, '-p', path.join(root, 'cli', 'tsconfig.json')], { encoding: 'utf8' }), 'building the CLI');

const { tsProtoParameter } = require(path.join(root, 'dist', 'cli', 'ts-proto-options.js'));
const bufPkg = path.dirname(require.resolve(`@bufbuild/buf-${process.platform}-${process.arch}/package.json`, { paths: [root] }));
const buf = path.join(bufPkg, 'bin', 'buf');
const plugin = path.join(path.dirname(require.resolve('ts-proto/package.json', { paths: [root] })), 'build', 'src', 'plugin.js');
const googleFiles = path.dirname(require.resolve('google-proto-files/package.json', { paths: [root] }));

/** A plain buf workspace (set up outside the timing): the proto root plus the annotation protos. */
function plainWorkspace(protoRoot, tmp) {
  const ws = path.join(tmp, 'plain-ws');
  fs.mkdirSync(path.join(ws, 'inc', 'google', 'api'), { recursive: true });
  fs.symlinkSync(protoRoot, path.join(ws, 'src'), 'dir');
  for (const f of ['annotations.proto', 'http.proto']) fs.copyFileSync(path.join(googleFiles, 'google', 'api', f), path.join(ws, 'inc', 'google', 'api', f));
  fs.cpSync(path.join(root, 'cli', 'protos', 'buf'), path.join(ws, 'inc', 'buf'), { recursive: true });
  return ws;
}

function listProtos(dir, depth = 0) {
  if (depth > 16) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return listProtos(full, depth + 1);
    return e.name.endsWith('.proto') ? [full] : [];
  });
}

function scenario(name, protoRoot) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-bench-gen-'));
  try {
    const ws = plainWorkspace(protoRoot, tmp);
    const config = JSON.stringify({ version: 'v2', modules: [{ path: 'src' }, { path: 'inc' }] });
    const plainOut = path.join(tmp, 'plain-out');
    const template = JSON.stringify({ version: 'v2', plugins: [{ local: [process.execPath, plugin], out: plainOut, strategy: 'all', opt: tsProtoParameter().split(',') }] });
    const fwOut = path.join(tmp, 'fw-out');
    // Same targets as fw-gen: every .proto of the tree (buf refuses a whole module as --path).
    const targets = listProtos(protoRoot).flatMap((f) => ['--path', `src/${path.relative(protoRoot, f).split(path.sep).join('/')}`]);
    const plain = [];
    const gen = [];
    const check = [];
    const cpu = { plain: [], gen: [], check: [] };
    for (let i = 0; i < runs; i++) {
      fs.rmSync(plainOut, { recursive: true, force: true });
      const p = time(buf, ['generate', '--config', config, '--template', template, ...targets, '.'], ws);
      must(p.result, 'buf generate');
      plain.push(p.ms);
      cpu.plain.push(p.cpu);
      fs.rmSync(fwOut, { recursive: true, force: true });
      const g = time(process.execPath, [fwGen, protoRoot, '--out', fwOut, '--stubs', fwOut, '--quiet'], root);
      must(g.result, 'fw-gen');
      gen.push(g.ms);
      cpu.gen.push(g.cpu);
      const c = time(process.execPath, [fwGen, '--check', protoRoot, '--out', fwOut, '--stubs', fwOut, '--quiet'], root);
      must(c.result, 'fw-gen --check');
      check.push(c.ms);
      cpu.check.push(c.cpu);
    }
    const plainMs = median(plain);
    const genMs = median(gen);
    const checkMs = median(check);
    const cpuPlain = median(cpu.plain);
    return {
      name,
      plainMs,
      genMs,
      checkMs,
      genRatio: genMs / plainMs,
      checkRatio: checkMs / plainMs,
      cpuPlain,
      cpuGen: median(cpu.gen),
      cpuCheck: median(cpu.check),
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const fixtureDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-bench-fixture-'));
try {
  writeFixture(fixtureDir, files, servicesPerFile);
  const only = process.env.BENCH_ONLY;
  const rows = [];
  if (only !== 'large') rows.push(scenario('proto/ (user.proto)', path.join(root, 'proto')));
  if (only !== 'small') rows.push(scenario(`${files} files, ${files * servicesPerFile} services`, fixtureDir));
  const pad = (s, n) => String(s).padEnd(n);
  const fmt = (n) => n.toFixed(0);
  process.stdout.write(`fw-gen vs plain buf generate + ts-proto (median of ${runs} runs, wall clock ms)\n\n`);
  process.stdout.write(`${pad('scenario', 28)}${pad('buf+ts-proto', 14)}${pad('fw-gen', 10)}${pad('ratio', 8)}${pad('target', 8)}${pad('--check', 10)}${pad('ratio', 8)}${pad('target', 8)}\n`);
  let ok = true;
  for (const r of rows) {
    const genOk = r.genRatio <= 1.5;
    const checkOk = r.checkRatio <= 2;
    ok = ok && genOk && checkOk;
    process.stdout.write(
      `${pad(r.name, 28)}${pad(fmt(r.plainMs), 14)}${pad(fmt(r.genMs), 10)}${pad(r.genRatio.toFixed(2) + 'x', 8)}${pad(genOk ? '≤1.5 ok' : '≤1.5 MISS', 8)} ${pad(fmt(r.checkMs), 10)}${pad(r.checkRatio.toFixed(2) + 'x', 8)}${checkOk ? '≤2 ok' : '≤2 MISS'}\n`,
    );
  }
  process.stdout.write(`\nCPU time (user+system of the whole process tree, ms), steadier on a shared machine:\n\n`);
  process.stdout.write(`${pad('scenario', 28)}${pad('buf+ts-proto', 14)}${pad('fw-gen', 10)}${pad('ratio', 8)}${pad('--check', 10)}${pad('ratio', 8)}\n`);
  for (const r of rows) {
    process.stdout.write(
      `${pad(r.name, 28)}${pad(fmt(r.cpuPlain), 14)}${pad(fmt(r.cpuGen), 10)}${pad((r.cpuGen / r.cpuPlain).toFixed(2) + 'x', 8)}${pad(fmt(r.cpuCheck), 10)}${pad((r.cpuCheck / r.cpuPlain).toFixed(2) + 'x', 8)}\n`,
    );
  }
  process.stdout.write(`\nload average: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs\n`);
  process.exitCode = ok ? 0 : 1;
} finally {
  fs.rmSync(fixtureDir, { recursive: true, force: true });
}
