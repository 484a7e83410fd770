#!/usr/bin/env node
'use strict';
// Runs fw-gen from its TypeScript sources in a child process, exactly as
// bin/fw-gen.js runs the compiled CLI: same argv, same exit codes. Tests use
// it so they never depend on a stale dist/ build.
require('./ts-require-hook');

// As bin/fw-gen.js does through cli/prestart.ts: start ts-proto first.
require('../../../cli/prestart.ts').prestartFor(process.argv.slice(2));
const { main } = require('../../../cli/main.ts');
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
