#!/usr/bin/env node
'use strict';
// npm run bench:footprint — what a service installs. fw and fw-gen are packed
// (npm run pack); a new project is made from the two tarballs by `fw-gen init`
// and installed for development (`npm install`), then for production
// (`npm ci --omit=dev`, after removing node_modules). Beside it, the anchors
// are installed the same way in folders of their own: Connect-ES
// (@connectrpc/connect-node + @bufbuild/protobuf) and Fastify, at the versions
// this repository pins. Rows: installed packages and node_modules size (du),
// and the time of each install (npm cache warm from the install before it;
// once more for fw with an empty cache, as a fresh CI machine installs).
// Target for fw's production install: ≤ 60 packages, ≤ 40 MB.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const repo = path.resolve(__dirname, '..', '..', '..');
const TARGET = { packages: 60, megabytes: 40 };
const env = { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };
for (const key of Object.keys(env)) if (key.startsWith('npm_package_') || key === 'npm_lifecycle_event' || key === 'INIT_CWD') delete env[key];

function sh(cwd, command, args) {
  return execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
}

function timed(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Installed packages under `dir/node_modules`: every folder holding a package.json that npm put there, nested ones included. */
function countPackages(modules) {
  let count = 0;
  const visit = (dir, depth) => {
    if (depth > 32 || !fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        visit(full, depth + 1);
        continue;
      }
      if (fs.existsSync(path.join(full, 'package.json'))) count++;
      visit(path.join(full, 'node_modules'), depth + 1);
    }
  };
  visit(modules, 0);
  return count;
}

function megabytes(dir) {
  return Number(sh(dir, 'du', ['-sk', 'node_modules']).split('\t')[0]) / 1024;
}

function measure(dir) {
  return { packages: countPackages(path.join(dir, 'node_modules')), megabytes: megabytes(dir) };
}

/** A production install of the project in `dir` (its package-lock.json written): measured after `npm ci --omit=dev`; `cache` replaces npm's cache folder. */
function production(dir, cache) {
  fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
  const seconds = timed(() => sh(dir, 'npm', ['ci', '--omit=dev', ...(cache === undefined ? [] : ['--cache', cache])]));
  return { ...measure(dir), seconds };
}

function pinned(name) {
  const lock = JSON.parse(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8'));
  return lock.packages[`node_modules/${name}`].version;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-footprint-'));
const rows = [];
try {
  process.stdout.write('packing fw and fw-gen (npm run pack)\n');
  const packed = JSON.parse(sh(repo, 'node', [path.join(repo, 'scripts', 'pack.js'), path.join(work, 'tarballs')]).trim().split('\n').pop());
  const tarball = (name) => packed.find((p) => p.name === name).tarball;

  const project = path.join(work, 'greeter');
  fs.mkdirSync(project);
  sh(project, 'npm', ['install', tarball('fw'), tarball('fw-gen')]);
  sh(project, 'npx', ['fw-gen', 'init', '.']);
  const devSeconds = timed(() => sh(project, 'npm', ['install']));
  rows.push({ name: 'fw project, dev install (npm install)', ...measure(project), seconds: devSeconds });
  const fw = production(project);
  rows.push({ name: 'fw project, npm ci --omit=dev', ...fw });
  // As a fresh CI machine sees it: every package downloaded (the time depends on the network).
  rows.push({ name: 'fw project, same, empty npm cache', ...production(project, path.join(work, 'empty-cache')) });

  const anchors = {
    'Connect-ES (connect-node + protobuf)': [`@connectrpc/connect-node@${pinned('@connectrpc/connect-node')}`, `@bufbuild/protobuf@${pinned('@bufbuild/protobuf')}`],
    Fastify: [`fastify@${pinned('fastify')}`],
  };
  for (const [name, specs] of Object.entries(anchors)) {
    const dir = path.join(work, name.replace(/\W+/g, '-'));
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"anchor","version":"1.0.0","private":true}\n');
    sh(dir, 'npm', ['install', ...specs]);
    rows.push({ name: `${name}, npm ci --omit=dev`, ...production(dir) });
  }

  process.stdout.write(`\ninstall footprint (node ${process.version}, npm ${sh(work, 'npm', ['--version']).trim()}; sizes from du)\n`);
  process.stdout.write(`${'install'.padEnd(46)}${'packages'.padStart(9)}${'size'.padStart(10)}${'npm time'.padStart(10)}\n`);
  for (const r of rows) process.stdout.write(`${r.name.padEnd(46)}${String(r.packages).padStart(9)}${`${r.megabytes.toFixed(1)} MB`.padStart(10)}${`${r.seconds.toFixed(1)} s`.padStart(10)}\n`);
  const met = fw.packages <= TARGET.packages && fw.megabytes <= TARGET.megabytes;
  process.stdout.write(`\ntarget: fw production install ≤ ${TARGET.packages} packages and ≤ ${TARGET.megabytes} MB → ${fw.packages} packages, ${fw.megabytes.toFixed(1)} MB ${met ? 'met' : 'MISSED'}\n`);
  process.exitCode = met ? 0 : 1;
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
