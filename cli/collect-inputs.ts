/**
 * Turns the CLI's `<files|dirs…>` into proto files, each with the import root
 * it is compiled against and its path relative to that root (which is also
 * where its output goes under `--out`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from './cli-error';

/** One proto file to generate code for. */
export interface InputFile {
  /** Absolute path on disk. */
  absolute: string;
  /** Absolute import root the file is compiled against. */
  root: string;
  /** Path relative to `root`, `/`-separated: `user.proto`, `a/b.proto`. */
  relative: string;
}

/** The resolved inputs of one run. */
export interface Inputs {
  /** Distinct import roots, sorted. */
  roots: string[];
  /** Files to generate, sorted by relative path. */
  files: InputFile[];
}

/** Directory names never searched for protos. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist']);

function listProtos(dir: string, out: string[], depth: number): void {
  if (depth > 32) return;
  const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) listProtos(full, out, depth + 1);
    } else if (entry.isFile() && entry.name.endsWith('.proto')) {
      out.push(full);
    }
  }
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * Resolves arguments (files or directories) into proto inputs.
 *
 * A directory argument is an import root and contributes every `.proto`
 * beneath it. A file argument uses the first `--proto-path` or directory
 * argument containing it as its root, else its own directory.
 * @throws InputError for a missing path, a non-proto file or no protos at all
 */
export function collectInputs(args: readonly string[], protoPaths: readonly string[], cwd: string): Inputs {
  if (args.length === 0) throw new InputError('fw-gen: no proto files or directories given (try --help)');
  const explicitRoots: string[] = [];
  for (const p of protoPaths) {
    const abs = path.resolve(cwd, p);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw new InputError(`fw-gen: --proto-path ${p}: no such directory`);
    explicitRoots.push(abs);
  }
  const dirArgs: string[] = [];
  const fileArgs: string[] = [];
  for (const arg of args) {
    const abs = path.resolve(cwd, arg);
    if (!fs.existsSync(abs)) throw new InputError(`fw-gen: ${arg}: no such file or directory`);
    const stat = fs.statSync(abs);
    if (stat.isDirectory()) dirArgs.push(abs);
    else if (abs.endsWith('.proto')) fileArgs.push(abs);
    else throw new InputError(`fw-gen: ${arg}: not a .proto file or a directory`);
  }
  const byPath = new Map<string, InputFile>();
  const add = (absolute: string, root: string): void => {
    if (!byPath.has(absolute)) byPath.set(absolute, { absolute, root, relative: toPosix(path.relative(root, absolute)) });
  };
  for (const dir of dirArgs) {
    const root = explicitRoots.find((r) => dir === r || isInside(dir, r)) ?? dir;
    const found: string[] = [];
    listProtos(dir, found, 0);
    for (const f of found) add(f, root);
  }
  for (const file of fileArgs) {
    const root = [...explicitRoots, ...dirArgs].find((r) => isInside(file, r)) ?? path.dirname(file);
    add(file, root);
  }
  const files = [...byPath.values()].sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  if (files.length === 0) throw new InputError(`fw-gen: no .proto files found in ${args.join(', ')}`);
  const relSeen = new Map<string, string>();
  for (const f of files) {
    const prior = relSeen.get(f.relative);
    if (prior !== undefined && prior !== f.absolute) {
      throw new InputError(`fw-gen: ${f.relative} is found in two roots (${prior} and ${f.absolute}); outputs would collide`);
    }
    relSeen.set(f.relative, f.absolute);
  }
  const roots = [...new Set([...files.map((f) => f.root), ...explicitRoots])].sort();
  return { roots, files };
}
