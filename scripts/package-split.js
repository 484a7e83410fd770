'use strict';
// The two packages this repository makes, derived from its package.json:
//   fw      the runtime (package.json's `files`, `exports`, `dependencies` and
//           optional `peerDependencies`): a service's only run-time dependency;
//   fw-gen  the generator (package.json's `bin`, the compiled cli/ and the
//           runtime files it imports, templates/, cli/protos/), a dev dependency,
//           whose dependencies are what its code requires, at the versions
//           package.json pins.
// Also checks that every package the runtime requires is declared, and that
// every declared runtime dependency is required somewhere.
const fs = require('node:fs');
const path = require('node:path');
const { builtinModules } = require('node:module');

const root = path.resolve(__dirname, '..');
const BUILTINS = new Set(builtinModules);
// require('x'), require.resolve('x'), require.resolve(`x/…`), and the optional peers loaded
// through runtime/core/optional-peer.ts: loadOptionalPeer('x', …).
const REQUIRE = /\b(?:require(?:\.resolve)?|loadOptionalPeer\)?)\(\s*["'`]([^"'`$]+)(["'`$])/g;

function readManifest() {
  return JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
}

/** Package name of a bare specifier (`@scope/name/sub` → `@scope/name`), or undefined for relative and built-in ones. */
function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return BUILTINS.has(name) ? undefined : name;
}

/** The specifiers `file` requires. */
function requiresOf(file) {
  const specifiers = [];
  for (const [, text, end] of fs.readFileSync(file, 'utf8').matchAll(REQUIRE)) {
    // A template literal counts only when its literal part holds a whole package name (`pkg/${…}`).
    if (end !== '$' || (packageOf(text) !== undefined && text.length > packageOf(text).length)) specifiers.push(text);
  }
  return specifiers;
}

function listJs(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listJs(full));
    else if (entry.name.endsWith('.js')) out.push(full);
  }
  return out;
}

/** From `entries` (absolute .js files): every local file reached through relative requires, and the packages required. */
function closure(entries) {
  const files = new Set();
  const packages = new Set();
  const queue = [...entries];
  for (let i = 0; i < queue.length && i < 100_000; i++) {
    const file = queue[i];
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of requiresOf(file)) {
      const name = packageOf(spec);
      if (name !== undefined) packages.add(name);
      else if (spec.startsWith('.')) {
        const base = path.resolve(path.dirname(file), spec);
        const found = [base, `${base}.js`, path.join(base, 'index.js')].find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
        if (found !== undefined && found.endsWith('.js')) queue.push(found);
      }
    }
  }
  return { files, packages };
}

function pick(names, manifest, what) {
  const versions = { ...manifest.devDependencies, ...manifest.peerDependencies, ...manifest.dependencies };
  const out = {};
  for (const name of [...names].sort()) {
    if (versions[name] === undefined) throw new Error(`${what} requires ${name}, which package.json does not declare`);
    out[name] = versions[name];
  }
  return out;
}

/**
 * Packages the runtime uses when present but must not declare, even as an
 * optional peer: npm installs an optional peer that the dev tree also has
 * (it is "devOptional"), so a production install would carry it.
 * google-proto-files (88 MB) is a dependency of fw-gen; loadProtoDefinition
 * reads google/api protos from it when installed and names it otherwise.
 * @grpc/grpc-js (with proto-loader, protobufjs and yargs about thirty
 * packages) is a dev dependency of every scaffold, whose test calls the
 * service with the typed gRPC client; fw loads it, and proto-loader, only
 * where a client, a proto file or the grpc-js engine needs them, and names
 * them when missing (runtime/grpc/grpc-js-peer.ts).
 */
const UNDECLARED_OPTIONAL = new Set(['google-proto-files', '@grpc/grpc-js', '@grpc/proto-loader']);

/** Runtime packages required vs declared: throws on an undeclared or an unused one. */
function checkRuntimeDependencies(manifest) {
  const used = closure(listJs(path.join(root, 'dist', 'runtime'))).packages;
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  const undeclared = [...used].filter((n) => !declared.has(n) && n !== 'fw' && !UNDECLARED_OPTIONAL.has(n));
  const unused = [...declared].filter((n) => !used.has(n));
  if (undeclared.length > 0) throw new Error(`the runtime requires ${undeclared.join(', ')}, not in dependencies or peerDependencies`);
  if (unused.length > 0) throw new Error(`package.json declares ${unused.join(', ')} for the runtime, which nothing in dist/runtime requires`);
}

const COMMON = ['version', 'license', 'engines', 'repository', 'homepage', 'bugs', 'author'];

function common(manifest) {
  return Object.fromEntries(COMMON.filter((k) => manifest[k] !== undefined).map((k) => [k, manifest[k]]));
}

/** The fw runtime package: manifest and files (relative to the repository root). */
function runtimePackage(manifest, npmFiles) {
  const out = { name: manifest.name, ...common(manifest), description: manifest.description };
  for (const key of ['main', 'types', 'exports', 'typesVersions', 'dependencies', 'peerDependencies', 'peerDependenciesMeta']) {
    if (manifest[key] !== undefined) out[key] = manifest[key];
  }
  // npm always adds `bin` files; they belong to fw-gen.
  const bins = new Set(Object.values(manifest.bin ?? {}).map((b) => path.normalize(b)));
  return { manifest: out, files: npmFiles.filter((f) => !bins.has(path.normalize(f))) };
}

/** The fw-gen generator package: manifest and files (relative to the repository root). */
function generatorPackage(manifest) {
  const bins = Object.values(manifest.bin ?? {}).map((b) => path.join(root, b));
  const { files, packages } = closure([...bins, ...listJs(path.join(root, 'dist', 'cli'))]);
  const assets = ['templates', path.join('cli', 'protos')].flatMap((dir) => listFiles(path.join(root, dir)));
  const out = {
    name: 'fw-gen',
    ...common(manifest),
    description: 'fw-gen: generates fw services, clients and stubs from .proto files; a dev dependency of services that depend on fw.',
    bin: manifest.bin,
    dependencies: pick(packages, manifest, 'fw-gen'),
  };
  const rel = [...files, ...assets].map((f) => path.relative(root, f));
  return { manifest: out, files: [...new Set([...rel, 'README.md', 'LICENSE'])].sort() };
}

function listFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else out.push(full);
  }
  return out;
}

module.exports = { root, readManifest, packageOf, closure, listJs, checkRuntimeDependencies, runtimePackage, generatorPackage };
