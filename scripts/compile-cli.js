'use strict';
// In a source checkout of fw (cli/*.ts present), bin/compiled-cli.js calls this to
// compile the CLI into dist/cli whenever dist/cli is missing or older than
// cli/: `npm install` builds nothing, and `npx fw-gen` still works right after
// it. Not shipped: the fw-gen package carries dist/cli already built.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

function newestSource(dir, depth) {
  let latest = 0;
  if (depth > 8) return latest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newestSource(full, depth + 1));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, fs.statSync(full).mtimeMs);
  }
  return latest;
}

/** Compiles cli/ of the checkout at `root` when `main` (a file of dist/cli) is older; exits 2 when that fails. */
function compileCliIfStale(root, main) {
  const sources = path.join(root, 'cli');
  const built = fs.existsSync(main) ? fs.statSync(main).mtimeMs : 0;
  if (built >= newestSource(sources, 0)) return;
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  // Compiler output goes to stderr: protoc-gen-fw's stdout is its response.
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(sources, 'tsconfig.json')], { stdio: ['ignore', 2, 2] });
  if (result.status !== 0 || !fs.existsSync(main)) {
    process.stderr.write('fw-gen: compiling the CLI from cli/ failed (tsc -p cli/tsconfig.json)\n');
    process.exit(2);
  }
}

module.exports = { compileCliIfStale };
