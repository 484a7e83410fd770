#!/usr/bin/env node
'use strict';
// Writes fw's ES module entry points next to the compiled CommonJS ones: for
// each `exports` entry of package.json whose `import` condition names an
// `.mjs` file, a wrapper that imports the CommonJS module and re-exports its
// names (so `import` and `require` share one module instance), and a `.d.mts`
// giving the wrapper the CommonJS declarations. Run by `npm run build`, after tsc.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The wrappers package.json's exports map asks for: `[{mjs, dmts, cjs}]`, paths relative to the root. */
function wrappedEntries(exportsMap) {
  const entries = [];
  for (const target of Object.values(exportsMap)) {
    const esm = target?.import;
    const cjs = target?.require;
    if (typeof esm !== 'object' || typeof cjs !== 'object' || !esm.default?.endsWith('.mjs')) continue;
    // fw/browser's .mjs is its own esbuild bundle, not a wrapper.
    if (esm.default === cjs.default.replace(/\.js$/, '.mjs') && esm.types?.endsWith('.d.mts')) entries.push({ mjs: esm.default, dmts: esm.types, cjs: cjs.default });
  }
  return entries;
}

function writeWrapper({ mjs, dmts, cjs }) {
  const cjsFile = path.join(root, cjs);
  const names = Object.keys(require(cjsFile)).filter((n) => n !== '__esModule' && n !== 'default' && IDENTIFIER.test(n)).sort();
  const rel = `./${path.basename(cjs)}`;
  const js = [`// ES module entry of ${rel}: the same module instance as require() gives.`, `import cjs from '${rel}';`, `export const { ${names.join(', ')} } = cjs;`, 'export default cjs;', ''];
  fs.writeFileSync(path.join(root, mjs), js.join('\n'));
  fs.writeFileSync(path.join(root, dmts), `export * from '${rel}';\n`);
}

const entries = wrappedEntries(manifest.exports);
for (const entry of entries) writeWrapper(entry);
module.exports = { wrappedEntries };
