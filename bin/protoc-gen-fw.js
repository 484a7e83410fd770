#!/usr/bin/env node
'use strict';
// fw-gen as a protoc/buf plugin: CodeGeneratorRequest on stdin, response on stdout.
require(require('./compiled-cli').compiledCli('protoc-plugin.js'))
  .runPlugin()
  .catch((error) => {
    process.stderr.write(`protoc-gen-fw: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
