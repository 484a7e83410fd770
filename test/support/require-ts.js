/**
 * Lets a plain Node process (benchmark servers, child-process fixtures)
 * require fw from its TypeScript source: each .ts file is transpiled on
 * require, and `fw`, `fw/grpc`, `fw/grpc-client`, `fw/protobuf-wire`, `fw/browser` resolve to runtime/ as
 * jest's moduleNameMapper does. `require('…/require-ts')` once, first.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(outputText, filename);
};

const root = path.resolve(__dirname, '../..');
const { FW_ENTRIES } = require('./fw-entries');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolve(request, ...rest) {
  const mapped = FW_ENTRIES[request];
  return resolveFilename.call(this, mapped === undefined ? request : path.join(root, mapped), ...rest);
};
