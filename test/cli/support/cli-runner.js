#!/usr/bin/env node
'use strict';
// Runs fw-gen from its TypeScript sources in a child process, exactly as
// bin/fw-gen.js runs the compiled CLI: same argv, same exit codes. Tests use
// it so they never depend on a stale dist/ build. Transpiled output is cached
// by content hash so that most runs never load the TypeScript compiler.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const cacheDir = path.join(os.tmpdir(), 'fw-gen-cli-cache');
let ts;

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const key = crypto.createHash('sha256').update(filename).update('\0').update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    ts ??= require('typescript');
    output = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    }).outputText;
    fs.mkdirSync(cacheDir, { recursive: true });
    // Write-then-rename: parallel test workers never read a half-written file.
    const partial = `${cached}.${process.pid}`;
    fs.writeFileSync(partial, output);
    fs.renameSync(partial, cached);
  }
  module._compile(output, filename);
};

// As bin/fw-gen.js does through cli/prestart.ts: start ts-proto first.
require('../../../cli/prestart.ts').prestartFor(process.argv.slice(2));
const { main } = require('../../../cli/main.ts');
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
