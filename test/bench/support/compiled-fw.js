/**
 * Benchmarks measure fw as a team deploys it: compiled JavaScript. Loading
 * fw from its TypeScript source (test/support/require-ts.js) keeps the
 * TypeScript compiler in the server's heap — about 90 MB more live heap for
 * every major GC to mark — which a production server never carries.
 *
 *   compileFw()     in a bench's orchestrator: compiles runtime/ once (tsc,
 *                   tsconfig.build.json) into node_modules/.cache and
 *                   exports it as FW_BENCH_DIST to the servers it spawns;
 *   useCompiledFw() in a bench server, first: `fw`, `fw/grpc`, … resolve to
 *                   that output, or to the TypeScript source through
 *                   require-ts when no compiled copy was made (the server
 *                   run alone);
 *   benchModule(f)  the path to require for one of the bench's own .ts
 *                   files (its generated code), compiled or not;
 *   compileBaseline(checkout)
 *                   compiles another checkout of fw (BENCH_BASELINE: the
 *                   commit to compare with) the same way, for a bench to run
 *                   it as one more interleaved subject (FW_BENCH_DIST set to
 *                   the returned folder in that server's environment).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '../../..');
const { FW_ENTRIES } = require('../../support/fw-entries');

/** Where a .ts file of the checkout lands in the compiled copy `out`. */
function compiledPath(out, tsFile) {
  return path.join(out, path.relative(ROOT, tsFile)).replace(/\.ts$/, '.js');
}

/**
 * Every .ts file under `dir` (a bench's own generated code), transpiled to .js
 * at the same place under `out` (relative to `root`, this checkout unless
 * given), with `ts` (this checkout's TypeScript unless given).
 */
function transpileDir(dir, out, root = ROOT, ts = require('typescript')) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    const target = path.join(out, path.relative(root, file)).replace(/\.ts$/, '.js');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, outputText);
  }
}

/**
 * Compiles fw (and the bench's own generated TypeScript under `alsoTranspile`
 * directories) into a fresh directory; returns it (also as process.env.FW_BENCH_DIST).
 */
function compileFw(alsoTranspile = []) {
  if (process.env.FW_BENCH_DIST !== undefined) return process.env.FW_BENCH_DIST;
  // Inside the checkout, so the compiled files resolve fw's own node_modules.
  const cache = path.join(ROOT, 'node_modules', '.cache');
  fs.mkdirSync(cache, { recursive: true });
  const out = fs.mkdtempSync(path.join(cache, 'fw-bench-dist-'));
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out], { cwd: ROOT, stdio: 'inherit' });
  for (const dir of alsoTranspile) transpileDir(dir, out);
  process.env.FW_BENCH_DIST = out;
  process.on('exit', () => fs.rmSync(out, { recursive: true, force: true }));
  return out;
}

/**
 * Compiles the fw checkout at `checkout` into its own node_modules/.cache (so
 * it resolves its own dependencies), with that checkout's fw-gen output of
 * this checkout's bench protos (test/bench/gateway/proto) beside it, so the
 * bench's typed kinds run on it too; returns the folder.
 */
function compileBaseline(checkout) {
  const root = path.resolve(checkout);
  const cache = path.join(root, 'node_modules', '.cache');
  if (!fs.existsSync(path.join(root, 'node_modules'))) throw new Error(`BENCH_BASELINE ${root}: no node_modules (run npm install there first)`);
  fs.mkdirSync(cache, { recursive: true });
  const out = fs.mkdtempSync(path.join(cache, 'fw-bench-baseline-'));
  compileCheckout(root, out, path.join(ROOT, 'test/bench/gateway/proto'));
  process.on('exit', () => fs.rmSync(out, { recursive: true, force: true }));
  return out;
}

/** `root` compiled with its own TypeScript into `out`, its bench generated code transpiled beside; with `protoDir`, its own fw-gen's code of those protos in their place. */
function compileCheckout(root, out, protoDir) {
  const ts = require(require.resolve('typescript', { paths: [root] }));
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [root] }), '-p', path.join(root, 'tsconfig.build.json'), '--outDir', out], { cwd: root, stdio: 'inherit' });
  for (const dir of [path.join(root, 'test/bench/gateway/generated')]) if (fs.existsSync(dir)) transpileDir(dir, out, root, ts);
  if (protoDir !== undefined) {
    const scratch = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'fw-bench-gen-'));
    const generated = path.join(scratch, 'test/bench/gateway/generated');
    execFileSync(process.execPath, [path.join(root, 'bin/fw-gen.js'), path.resolve(protoDir), '--out', generated, '--stubs', path.join(scratch, 'stubs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    transpileDir(generated, out, scratch, ts);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Makes `fw` and its subpaths resolve to the compiled copy (or the TypeScript source). */
let installed = false;
function useCompiledFw() {
  if (installed) return;
  installed = true;
  const dist = process.env.FW_BENCH_DIST;
  if (dist === undefined) {
    require('../../support/require-ts');
    return;
  }
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function resolve(request, ...rest) {
    const mapped = FW_ENTRIES[request];
    return resolveFilename.call(this, mapped === undefined ? request : compiledPath(dist, path.join(ROOT, mapped)), ...rest);
  };
}

/** A .ts file of the checkout as a bench server loads it: its compiled .js when there is one. */
function benchModule(tsFile) {
  useCompiledFw();
  const dist = process.env.FW_BENCH_DIST;
  return dist === undefined ? tsFile : compiledPath(dist, tsFile);
}

/**
 * `node test/bench/support/compiled-fw.js <checkout> <out> [--gen <proto dir>]`:
 * compiles the fw checkout at <checkout> with its own TypeScript
 * (tsconfig.build.json) into <out> (kept; put it inside that checkout's
 * node_modules, so it resolves its own dependencies), and transpiles that
 * checkout's bench generated code (test/bench/gateway/generated) beside it.
 * With --gen, that checkout's own fw-gen first generates the protos of
 * <proto dir> (e.g. this checkout's test/bench/gateway/proto, for a kind the
 * other checkout does not have), and those are transpiled in their place.
 * A bench server of this checkout run with FW_BENCH_DIST=<out> then loads
 * that checkout's runtime *and* its generated services (benchModule), e.g.
 * for before/after instruction counts of a generated service
 * (count-instructions.sh /users/echo node test/bench/gateway/server.js user-echo).
 */
if (require.main === module) {
  const [checkout, outArg, flag, protoDir] = process.argv.slice(2);
  if (checkout === undefined || outArg === undefined || (flag !== undefined && (flag !== '--gen' || protoDir === undefined))) {
    console.error('usage: node test/bench/support/compiled-fw.js <checkout> <out> [--gen <proto dir>]');
    process.exit(2);
  }
  const out = path.resolve(outArg);
  compileCheckout(path.resolve(checkout), out, protoDir);
  console.log(out);
}

module.exports = { compileFw, compileBaseline, useCompiledFw, benchModule };
