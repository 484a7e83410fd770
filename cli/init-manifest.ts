/**
 * The package.json of a project `fw-gen init` scaffolds: a new one, or the
 * one already there (say, written by `npm install ../fw-0.1.0.tgz`) with what
 * the scaffold needs added and nothing of the user's replaced.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ModuleSystem } from './module-system';
import { packageRoot } from './package-root';

type Manifest = Record<string, unknown> & {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
};

/**
 * TypeScript and Node types the scaffold compiles with (TypeScript 5.9 works
 * too: docs/getting-started.md), and @grpc/grpc-js for its test's typed gRPC
 * client: fw loads grpc-js only where a client (or the grpc-js engine) needs
 * it, so it is a dev dependency and `npm ci --omit=dev` leaves it out.
 */
export const DEV_DEPENDENCIES: Readonly<Record<string, string>> = { typescript: '^7.0.2', '@types/node': '^22.0.0', '@grpc/grpc-js': '^1.14.7' };

/** Install scripts of fw's and fw-gen's dependencies (npm 11's `allowScripts`): protobufjs (through @grpc/grpc-js) and buf. */
const INSTALL_SCRIPTS: Readonly<Record<string, boolean>> = { protobufjs: true, '@bufbuild/buf': true };

function readManifest(file: string): Manifest | undefined {
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
}

/** A `file:` spec rewritten from `fromDir` to `toDir`; other specs unchanged. */
function rebase(spec: string, fromDir: string, toDir: string): string {
  if (!spec.startsWith('file:')) return spec;
  const target = path.resolve(fromDir, spec.slice('file:'.length));
  const rel = path.relative(toDir, target).split(path.sep).join('/');
  return `file:${rel.startsWith('.') ? rel : `./${rel}`}`;
}

/** How the new project names one dependency; `vendorFrom`: a tarball to copy into `vendor/` first. */
export interface DependencySpec {
  spec: string;
  vendorFrom?: string;
}

/** The scaffold's fw (a dependency) and fw-gen (a dev dependency; none when fw is a checkout, whose bin is fw-gen). */
export interface ScaffoldSpecs {
  fw: DependencySpec;
  fwGen: DependencySpec | undefined;
}

function declared(manifest: Manifest | undefined, name: string): string | undefined {
  return manifest?.dependencies?.[name] ?? manifest?.devDependencies?.[name];
}

/** The spec of `name` in the nearest package.json above `dir`, a `file:` path rebased. */
function enclosingSpec(dir: string, name: string): string | undefined {
  let current = path.dirname(dir);
  for (let i = 0; i < 64; i++) {
    const spec = declared(readManifest(path.join(current, 'package.json')), name);
    if (spec !== undefined) return rebase(spec, current, dir);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return undefined;
}

/**
 * A tarball the project's own package.json points to outside the project
 * (`npm install ../fw-0.1.0.tgz` wrote it) is copied into `vendor/`: a clone
 * of the project then installs on any machine, with an empty npm cache.
 */
function vendored(dir: string, spec: string): DependencySpec {
  if (!spec.startsWith('file:') || !spec.endsWith('.tgz')) return { spec };
  const target = path.resolve(dir, spec.slice('file:'.length));
  const rel = path.relative(dir, target);
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) return { spec };
  return { spec: `file:vendor/${path.basename(target)}`, vendorFrom: target };
}

/**
 * How the new project depends on fw and fw-gen, each: the `--fw`/`--fw-gen`
 * spec when given; else the project's own package.json (a tarball outside it
 * vendored); else the nearest package.json above it (a `file:` path rebased);
 * else, when this fw-gen runs from a checkout of fw, that folder for fw (its
 * bin is fw-gen); else this version from the registry.
 */
export function scaffoldSpecs(dir: string, given: { fw?: string; fwGen?: string }): ScaffoldSpecs {
  const own = readManifest(path.join(dir, 'package.json'));
  const root = packageRoot();
  const checkout = !root.split(path.sep).includes('node_modules');
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const resolve = (name: string, flag: string | undefined): DependencySpec | undefined => {
    if (flag !== undefined) return { spec: flag };
    const mine = declared(own, name);
    if (mine !== undefined) return vendored(dir, mine);
    const enclosing = enclosingSpec(dir, name);
    if (enclosing !== undefined) return { spec: enclosing };
    if (!checkout) return { spec: `^${version}` };
    return name === 'fw' ? { spec: rebase(`file:${root}`, dir, dir) } : undefined;
  };
  return { fw: resolve('fw', given.fw) as DependencySpec, fwGen: resolve('fw-gen', given.fwGen) };
}

/** Scripts of the scaffold; `test` names its one test file (Node 20's `--test` takes no globs). */
function scripts(testFile: string): Record<string, string> {
  return {
    generate: 'fw-gen proto',
    check: 'fw-gen --check proto',
    build: 'tsc -p tsconfig.json',
    start: 'npm run build && node dist/src/main.js',
    test: `npm run build && node --test ${testFile}`,
  };
}

/**
 * The scaffold's package.json text: `existing` (if any) with the module type
 * set, the scaffold's scripts (replacing same-named ones, such as `npm init`'s
 * placeholder `test`), fw and fw-gen as `specs` says, and the other dev
 * dependencies where absent.
 */
export function scaffoldManifest(dir: string, name: string, system: ModuleSystem, specs: ScaffoldSpecs, testFile: string): string {
  const existing: Manifest = readManifest(path.join(dir, 'package.json')) ?? {};
  const out: Manifest = { name, version: '0.1.0', private: true, ...existing };
  if (system === 'esm') out['type'] = 'module';
  else if (out['type'] === 'module') out['type'] = 'commonjs';
  out.scripts = { ...(existing.scripts ?? {}), ...scripts(testFile) };
  // fw is what the service runs; fw-gen only generates code: a dev dependency (`npm ci --omit=dev` leaves it out).
  const { 'fw-gen': _generator, ...dependencies } = existing.dependencies ?? {};
  out.dependencies = { ...dependencies, fw: specs.fw.spec };
  // npm 11 asks about every dependency with install scripts: approve the two fw's dependencies bring.
  out['allowScripts'] = { ...INSTALL_SCRIPTS, ...((existing['allowScripts'] as Record<string, boolean> | undefined) ?? {}) };
  out.devDependencies = { ...DEV_DEPENDENCIES, ...(existing.devDependencies ?? {}), ...(specs.fwGen === undefined ? {} : { 'fw-gen': specs.fwGen.spec }) };
  return `${JSON.stringify(out, null, 2)}\n`;
}
