/**
 * The `.proto` files of a git revision, written to a temp directory with the
 * repository's layout, so the same inputs can be built as they were then.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from './cli-error';

/** The protos of one revision on disk; `dispose()` removes them. */
export interface GitProtoTree {
  /** The repository's top level (absolute). */
  top: string;
  /** Where the revision's protos were written, in the repository's layout. */
  dir: string;
  dispose(): void;
}

function git(args: readonly string[], cwd: string): string {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.error !== undefined) throw new InputError(`fw-gen: cannot run git: ${result.error.message}`);
  if (result.status !== 0) throw new InputError(`fw-gen: git ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

/** Writes every `.proto` of `ref` in the repository holding `cwd` to a temp directory. */
export function protosAtRevision(ref: string, cwd: string): GitProtoTree {
  const top = git(['rev-parse', '--show-toplevel'], cwd).trim();
  const commit = git(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`], top).trim();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-gen-against-'));
  try {
    const names = git(['ls-tree', '-r', '-z', '--name-only', commit], top).split('\0').filter((n) => n.endsWith('.proto'));
    for (const name of names) {
      const target = path.join(dir, ...name.split('/'));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, git(['show', `${commit}:${name}`], top));
    }
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return { top: fs.realpathSync(top), dir, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
