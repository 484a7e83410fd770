/**
 * Locates fw's own package directory, which holds `cli/protos/` (the
 * annotation protos fw ships) and `templates/`. Works from the TypeScript
 * sources (cli/) and from the compiled output (dist/cli/).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

let cached: string | undefined;

/** Absolute path of the directory holding fw's package.json. */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = __dirname;
  // Bounded walk: the package root is at most a few levels above this file.
  for (let i = 0; i < 8; i++) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && fs.existsSync(path.join(dir, 'templates'))) {
      cached = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`fw-gen: cannot locate its package root from ${__dirname}`);
}
