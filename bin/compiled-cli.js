'use strict';
// Where the bins find the compiled CLI, dist/cli/. The published package ships
// dist/ (built at pack time by `prepack`), so a project that depends on fw runs
// it as is. In a source checkout of fw (cli/*.ts beside bin/) the CLI is
// compiled first whenever dist/cli is missing or older than cli/: `npm install`
// builds nothing, and `npx fw-gen` still works right after it.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist', 'cli');
const sources = path.join(root, 'cli');

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

/** The path of `dist/cli/<file>`, compiled from cli/ first when needed. */
function compiledCli(file) {
  const entry = path.join(dist, file);
  if (fs.existsSync(path.join(sources, 'main.ts'))) {
    const built = fs.existsSync(entry) ? fs.statSync(entry).mtimeMs : 0;
    if (built < newestSource(sources, 0)) {
      const { spawnSync } = require('node:child_process');
      const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
      // Compiler output goes to stderr: protoc-gen-fw's stdout is its response.
      const result = spawnSync(process.execPath, [tsc, '-p', path.join(sources, 'tsconfig.json')], { stdio: ['ignore', 2, 2] });
      if (result.status !== 0 || !fs.existsSync(entry)) {
        process.stderr.write('fw-gen: compiling the CLI from cli/ failed (tsc -p cli/tsconfig.json)\n');
        process.exit(2);
      }
    }
  }
  return entry;
}

module.exports = { compiledCli };
