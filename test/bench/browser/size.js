#!/usr/bin/env node
'use strict';
// npm run bench:browser — bundle size of the generated browser client. fw-gen
// generates proto/user.proto (the example's UserService: 8 RPCs, streaming of
// each kind) and test/bench/browser/proto/four_rpcs.proto (one RPC of each
// kind) into a temp dir; esbuild bundles a page that creates the client
// (minified, tree-shaken, ESM, browser platform); the bundle is gzipped
// (level 9) and measured. Rows: the 8-RPC client over WebSocket (the headline,
// target ≤ 10 kB min+gz), the same with the fetch transport too, the 4-RPC
// client, the fw/browser runtime alone, and for reference a client whose
// proto uses google.protobuf.Any (the CLI's kitchen-sink CatalogService: its
// run keeps the binary codec, which Any's JSON needs). The figures include the
// messages' JSON code (x.browser-messages.ts: no binary codec). A bundle that
// holds the binary codec anyway (but the Any row) fails the run.
// Deterministic: no timing.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { buildSync } = require('esbuild');

const root = path.resolve(__dirname, '..', '..', '..');
const TARGET_BYTES = 10 * 1024;
const ANY_ROW = 'client with Any, binary codec (6 RPCs)';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-browser-size-'));
try {
  const kitchenSink = path.join(root, 'test', 'cli', 'fixtures', 'kitchen-sink', 'proto');
  for (const [proto, out] of [[path.join(root, 'proto'), 'user'], [path.join(__dirname, 'proto'), 'four'], [kitchenSink, 'any']]) {
    const gen = spawnSync(process.execPath, [path.join(root, 'bin', 'fw-gen.js'), proto, '--out', path.join(work, out), '--stubs', path.join(work, `${out}-stubs`)], { encoding: 'utf8' });
    if (gen.status !== 0) {
      process.stderr.write(`fw-gen failed:\n${gen.stderr}${gen.stdout}\n`);
      process.exit(1);
    }
  }
  const entries = {
    'client over WebSocket (8 RPCs)': `
      import { createWebSocketTransport } from 'fw/browser';
      import { createUserServiceBrowserClient } from './user/user.browser';
      export const client = createUserServiceBrowserClient(createWebSocketTransport({ url: 'ws://localhost:3000/ws' }));`,
    'client over WebSocket + fetch (8 RPCs)': `
      import { createFetchTransport, createWebSocketTransport } from 'fw/browser';
      import { createUserServiceBrowserClient } from './user/user.browser';
      export const ws = createUserServiceBrowserClient(createWebSocketTransport({ url: 'ws://localhost:3000/ws' }));
      export const http = createUserServiceBrowserClient(createFetchTransport());`,
    'client over WebSocket (4 RPCs)': `
      import { createWebSocketTransport } from 'fw/browser';
      import { createDirectoryBrowserClient } from './four/four_rpcs.browser';
      export const client = createDirectoryBrowserClient(createWebSocketTransport({ url: 'ws://localhost:3000/ws' }));`,
    'fw/browser runtime alone (all exports)': `export * from 'fw/browser';`,
    [ANY_ROW]: `
      import { createWebSocketTransport } from 'fw/browser';
      import { createCatalogServiceBrowserClient } from './any/shop/v1/catalog.browser';
      export const client = createCatalogServiceBrowserClient(createWebSocketTransport({ url: 'ws://localhost:3000/ws' }));`,
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
    // The binary codec's marks: ts-proto's encode/decode methods and the wire writer they call.
    const binary = /\.uint32\(|BinaryWriter|BinaryReader/.test(Buffer.from(bytes).toString('utf8'));
    rows.push({ name, min: bytes.length, gz: zlib.gzipSync(bytes, { level: 9 }).length, binary: binary && name !== ANY_ROW });
  }
  const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
  console.log('browser client bundle size (esbuild --minify, tree-shaken; gzip -9)');
  for (const r of rows) console.log(`  ${r.name.padEnd(42)} min ${kb(r.min).padStart(8)}   min+gz ${kb(r.gz).padStart(7)}${r.binary ? '   HOLDS THE BINARY CODEC' : ''}`);
  const headline = rows[0].gz;
  const ok = headline <= TARGET_BYTES && !rows.some((r) => r.binary);
  console.log(`target: 8-RPC client over WebSocket ≤ ${kb(TARGET_BYTES)} min+gz, no binary codec → ${kb(headline)} ${ok ? 'OK' : 'OVER'}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
