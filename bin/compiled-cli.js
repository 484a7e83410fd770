'use strict';
// Where the bins find the compiled CLI, dist/cli/<file>. The fw-gen package
// ships dist/cli already built (at pack time), so a project that depends on it
// runs it as is. In a source checkout of fw (scripts/compile-cli.js beside
// cli/*.ts) the CLI is compiled first whenever dist/cli is missing or older
// than cli/: `npm install` builds nothing, and `npx fw-gen` works right after.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** The path of `dist/cli/<file>`, compiled from cli/ first when this is a checkout and it is stale. */
function compiledCli(file) {
  const entry = path.join(root, 'dist', 'cli', file);
  const compiler = path.join(root, 'scripts', 'compile-cli.js');
  if (fs.existsSync(compiler) && fs.existsSync(path.join(root, 'cli', 'main.ts'))) require(compiler).compileCliIfStale(root, entry);
  return entry;
}

module.exports = { compiledCli };
