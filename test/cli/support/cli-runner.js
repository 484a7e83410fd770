#!/usr/bin/env node
'use strict';
// Runs fw-gen from its TypeScript sources in a child process, exactly as
// bin/fw-gen.js runs the compiled CLI: same argv, same exit codes. Tests use
// it so they never depend on a stale dist/ build.
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const out = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(out.outputText, filename);
};

const { main } = require('../../../cli/main.ts');
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
