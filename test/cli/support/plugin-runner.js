#!/usr/bin/env node
'use strict';
// Runs protoc-gen-fw from its TypeScript sources, as bin/protoc-gen-fw.js runs
// the compiled plugin: for `buf generate` in tests, never a stale dist/ build.
require('./ts-require-hook');

require('../../../cli/protoc-plugin.ts')
  .runPlugin()
  .catch((error) => {
    process.stderr.write(`protoc-gen-fw: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
