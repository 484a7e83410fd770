/*
 * Lets a plain `node` child process require the TypeScript runtime (runtime/*.ts)
 * directly: each .ts file is transpiled on load with TypeScript's own
 * transpileModule (no type check). For fixtures that must run in their own
 * process, e.g. to measure the server's memory apart from the test's.
 */
'use strict';
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false },
  });
  module._compile(outputText, filename);
};
