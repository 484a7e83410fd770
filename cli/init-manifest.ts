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

/** TypeScript and Node types the scaffold compiles with (TypeScript 5.9 works too: docs/getting-started.md). */
export const DEV_DEPENDENCIES: Readonly<Record<string, string>> = { typescript: '^7.0.2', '@types/node': '^20.19.0' };

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

/**
 * How the new project depends on fw: `--fw` when given; else the spec of the
 * nearest package.json above `dir` that depends on fw (a `file:` path
 * rebased); else this fw's own folder when it is a checkout or a link, not an
 * installed copy; else its version from the registry.
 */
export function fwSpec(dir: string, given: string | undefined): string {
  if (given !== undefined) return given;
  let current = path.dirname(dir);
  for (let i = 0; i < 64; i++) {
    const spec = readManifest(path.join(current, 'package.json'))?.dependencies?.['fw'];
    if (spec !== undefined) return rebase(spec, current, dir);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  const root = packageRoot();
  if (!root.split(path.sep).includes('node_modules')) return rebase(`file:${root}`, dir, dir);
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  return `^${version}`;
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
 * placeholder `test`), and fw and the dev dependencies where absent.
 */
export function scaffoldManifest(dir: string, name: string, system: ModuleSystem, fw: string, testFile: string): string {
  const existing: Manifest = readManifest(path.join(dir, 'package.json')) ?? {};
  const out: Manifest = { name, version: '0.1.0', private: true, ...existing };
  if (system === 'esm') out['type'] = 'module';
  else if (out['type'] === 'module') out['type'] = 'commonjs';
  out.scripts = { ...(existing.scripts ?? {}), ...scripts(testFile) };
  out.dependencies = { fw, ...(existing.dependencies ?? {}) };
  out.devDependencies = { ...DEV_DEPENDENCIES, ...(existing.devDependencies ?? {}) };
  return `${JSON.stringify(out, null, 2)}\n`;
}
