#!/usr/bin/env node
'use strict';
// npm run pack -- <dir>: builds dist/ and writes the two packages of this
// repository into <dir> (default: the current folder): fw-<version>.tgz, the
// runtime a service depends on, and fw-gen-<version>.tgz, the generator it
// takes as a dev dependency (scripts/package-split.js says what goes where).
// Prints one JSON line: [{name, tarball, files, bytes, unpackedBytes}].
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { root, readManifest, checkRuntimeDependencies, runtimePackage, generatorPackage } = require('./package-split');

const dest = path.resolve(process.argv[2] ?? '.');
fs.mkdirSync(dest, { recursive: true });
const quiet = { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] };
execFileSync('npm', ['run', '--silent', 'clean'], quiet);
execFileSync('npm', ['run', '--silent', 'build'], quiet);

const manifest = readManifest();
checkRuntimeDependencies(manifest);

/** The files `npm pack` takes from the repository root under package.json's `files`. */
function npmFiles() {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const [info] = JSON.parse(out.slice(out.indexOf('[')));
  return info.files.map((f) => f.path).filter((f) => f !== 'package.json');
}

/** Copies `files` into a staging folder beside `manifest`, packs it into `dest`. */
function pack(pkg) {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), `fw-pack-${pkg.manifest.name}-`));
  try {
    for (const rel of pkg.files) {
      fs.mkdirSync(path.dirname(path.join(stage, rel)), { recursive: true });
      fs.copyFileSync(path.join(root, rel), path.join(stage, rel));
    }
    fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(pkg.manifest, null, 2)}\n`);
    const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest], { cwd: stage, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    const [info] = JSON.parse(out.slice(out.indexOf('[')));
    return { name: pkg.manifest.name, tarball: path.join(dest, info.filename), files: info.entryCount, bytes: info.size, unpackedBytes: info.unpackedSize };
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

const packed = [pack(runtimePackage(manifest, npmFiles())), pack(generatorPackage(manifest))];
process.stdout.write(`${JSON.stringify(packed)}\n`);
