#!/usr/bin/env node
'use strict';
// `npm start`: regenerate code from proto/ (fw-gen merges the example stub),
// rebuild dist/ when sources are newer than it, then serve the user service
// through the protocol gateway (HTTP, WebSocket, gRPC, TCP and UDP) on PORT
// (default 50051). Plain JS so it runs before any build.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const dist = path.join(root, 'dist');
const main = path.join(dist, 'examples', 'user-service', 'gateway.js');

function run(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  return result.status === null ? 1 : result.status;
}

function newest(dir) {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
  }
  return latest;
}

const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
if (!fs.existsSync(path.join(dist, 'cli', 'main.js'))) run(process.execPath, [tsc, '-p', path.join(root, 'cli', 'tsconfig.json')]);
const gen = run(process.execPath, [path.join(root, 'bin', 'fw-gen.js'), 'proto', '--stubs', 'examples/user-service', '--quiet']);
if (gen !== 0) process.exit(gen);

const sources = Math.max(newest(path.join(root, 'generated')), newest(path.join(root, 'examples', 'user-service')), newest(path.join(root, 'runtime')));
if (!fs.existsSync(main) || fs.statSync(main).mtimeMs < sources) {
  // tsc still emits when unrelated files have type errors; the server only needs the emitted JS.
  run(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')]);
}
if (!fs.existsSync(main)) {
  process.stderr.write('npm start: dist/examples/user-service/gateway.js was not built\n');
  process.exit(1);
}
require(main).serve();
