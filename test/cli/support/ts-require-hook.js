'use strict';
// Lets a child process require fw-gen's TypeScript sources, as the compiled
// dist/ would run: transpiled output is cached by content hash so that most
// runs never load the TypeScript compiler.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const cacheDir = path.join(os.tmpdir(), 'fw-gen-cli-cache');
let ts;

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const key = crypto.createHash('sha256').update(filename).update('\0').update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    ts ??= require('typescript');
    output = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    }).outputText;
    fs.mkdirSync(cacheDir, { recursive: true });
    // Write-then-rename: parallel test workers never read a half-written file.
    const partial = `${cached}.${process.pid}`;
    fs.writeFileSync(partial, output);
    fs.renameSync(partial, cached);
  }
  module._compile(output, filename);
};

