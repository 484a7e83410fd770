#!/usr/bin/env node
'use strict';
// npm run bench:browser — bundle size of the generated browser client. fw-gen
// generates test/bench/browser/proto/four_rpcs.proto (one service, one RPC of
// each kind) into a temp dir; esbuild bundles a page that creates the client
// (minified, tree-shaken, ESM, browser platform); the bundle is gzipped
// (level 9) and measured. Rows: the client over WebSocket (the headline,
// target ≤ 15 kB min+gz), the same with the fetch transport too, and the
// fw/browser runtime alone. The figures include ts-proto's message code and
// the protobuf wire reader/writer it imports. Deterministic: no timing.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { buildSync } = require('esbuild');

const root = path.resolve(__dirname, '..', '..', '..');
const TARGET_BYTES = 15 * 1024;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-browser-size-'));
try {
  const gen = spawnSync(process.execPath, [path.join(root, 'bin', 'fw-gen.js'), path.join(__dirname, 'proto'), '--out', path.join(work, 'gen'), '--stubs', path.join(work, 'stubs')], { encoding: 'utf8' });
  if (gen.status !== 0) {
    process.stderr.write(`fw-gen failed:\n${gen.stderr}${gen.stdout}\n`);
    process.exit(1);
  }
  const entries = {
    'client over WebSocket (4 RPCs)': `
      import { createWebSocketTransport } from 'fw/browser';
      import { createDirectoryBrowserClient } from './gen/four_rpcs.browser';
      export const client = createDirectoryBrowserClient(createWebSocketTransport({ url: 'ws://localhost:3000/ws' }));`,
    'client over WebSocket + fetch': `
      import { createFetchTransport, createWebSocketTransport } from 'fw/browser';
      import { createDirectoryBrowserClient } from './gen/four_rpcs.browser';
      export const ws = createDirectoryBrowserClient(createWebSocketTransport({ url: 'ws://localhost:3000/ws' }));
      export const http = createDirectoryBrowserClient(createFetchTransport());`,
    'fw/browser runtime alone (all exports)': `export * from 'fw/browser';`,
  };
  const rows = [];
  for (const [name, source] of Object.entries(entries)) {
    const entry = path.join(work, `${rows.length}.ts`);
    fs.writeFileSync(entry, source);
    const out = buildSync({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      treeShaking: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'warning',
      alias: { 'fw/browser': path.join(root, 'runtime', 'browser', 'index.ts'), 'fw/protobuf-wire': path.join(root, 'runtime', 'protobuf-wire.ts') },
    });
    const bytes = out.outputFiles[0].contents;
    rows.push({ name, min: bytes.length, gz: zlib.gzipSync(bytes, { level: 9 }).length });
  }
  const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
  console.log('browser client bundle size (esbuild --minify, tree-shaken; gzip -9)');
  for (const r of rows) console.log(`  ${r.name.padEnd(42)} min ${kb(r.min).padStart(8)}   min+gz ${kb(r.gz).padStart(7)}`);
  const headline = rows[0].gz;
  const ok = headline <= TARGET_BYTES;
  console.log(`target: client over WebSocket ≤ ${kb(TARGET_BYTES)} min+gz → ${kb(headline)} ${ok ? 'OK' : 'OVER'}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
