/**
 * The temporary buf workspace fw-gen compiles in: one symlinked module per
 * user import root plus an `inc` module holding only the annotation protos
 * the user's files need (google/api from google-proto-files, buf/validate
 * from fw's own subset). Building all of google-proto-files would take
 * seconds and fail, so files are copied one by one, following imports.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packageRoot } from './package-root';

/** A buf workspace in a temp directory; call `dispose()` when done. */
export interface Workspace {
  dir: string;
  /** Module folder name (inside `dir`) → absolute user root. */
  modules: Map<string, string>;
  /** Module folder names, in `--config` order. */
  moduleNames: string[];
  dispose(): void;
}

const IMPORT_RE = /^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;/gm;
/** Always offered, so `google.api.http` and `buf.validate` resolve offline. */
const DEFAULT_INCLUDES = ['google/api/annotations.proto', 'buf/validate/validate.proto'];

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) found.push(m[1] as string);
  return found;
}

function findIn(roots: readonly string[], rel: string): string | undefined {
  for (const r of roots) {
    const candidate = path.join(r, rel);
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Creates the workspace for `roots` and the input files they hold.
 * An include the user's own tree already has is skipped (buf refuses a file
 * "contained in multiple modules").
 */
export function createWorkspace(roots: readonly string[], inputFiles: readonly string[]): Workspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-gen-'));
  const modules = new Map<string, string>();
  const moduleNames: string[] = [];
  roots.forEach((root, i) => {
    const name = `src${i}`;
    fs.symlinkSync(root, path.join(dir, name), 'dir');
    modules.set(name, root);
    moduleNames.push(name);
  });
  const shipped = path.join(packageRoot(), 'cli', 'protos');
  const googleFiles = path.dirname(require.resolve('google-proto-files/package.json'));
  const includeSources = [shipped, googleFiles];
  const inc = path.join(dir, 'inc');
  const wanted = [...DEFAULT_INCLUDES];
  const queue = [...inputFiles];
  const seenUser = new Set<string>(queue);
  // Follow imports through the user's tree to find which includes are needed.
  for (let i = 0; i < queue.length && i < 10000; i++) {
    for (const imp of importsOf(queue[i] as string)) {
      const local = findIn(roots, imp);
      if (local !== undefined) {
        if (!seenUser.has(local)) {
          seenUser.add(local);
          queue.push(local);
        }
      } else if (!imp.startsWith('google/protobuf/')) {
        wanted.push(imp);
      }
    }
  }
  const copied = new Set<string>();
  for (let i = 0; i < wanted.length && i < 1000; i++) {
    const rel = wanted[i] as string;
    if (copied.has(rel) || findIn(roots, rel) !== undefined || rel.startsWith('google/protobuf/')) continue;
    const source = findIn(includeSources, rel);
    // An unknown import is left for buf to report with file:line:col.
    if (source === undefined) continue;
    const target = path.join(inc, rel);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
    copied.add(rel);
    wanted.push(...importsOf(source));
  }
  if (copied.size > 0) moduleNames.push('inc');
  return {
    dir,
    modules,
    moduleNames,
    dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
