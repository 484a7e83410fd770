#!/usr/bin/env node
'use strict';
// Launcher of the compiled CLI, dist/cli/main.js. The fw-gen package ships
// dist/ (built when packed), so a project that depends on it runs it as is.
// In a source checkout of fw (scripts/compile-cli.js next to cli/*.ts), the
// CLI is compiled first when dist/cli is missing or stale.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const main = path.join(root, 'dist', 'cli', 'main.js');
const compiler = path.join(root, 'scripts', 'compile-cli.js');
if (fs.existsSync(compiler) && fs.existsSync(path.join(root, 'cli', 'main.ts'))) require(compiler).compileCliIfStale(root, main);
require(main);
