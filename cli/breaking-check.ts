/**
 * `fw-gen --check --against <git-ref>`: the protos now against the same
 * protos at `<git-ref>`, judged by `buf breaking` in one of its categories
 * (WIRE_JSON by default). Both sides are built the way fw-gen builds (same
 * import roots, same annotation protos), as buf images. Each failure reads
 * `file:line:column: RULE: message naming the element`. An RPC that is gone
 * is reported whatever the category, with its handler: the stub keeps it.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bufBuild, resolveBuf, workspaceTargets } from './buf-build';
import { InputError } from './cli-error';
import { collectInputs, type Inputs } from './collect-inputs';
import { protosAtRevision } from './git-tree';
import { createWorkspace } from './include-root';
import { removedRpcs } from './removed-rpcs';

/** `buf breaking` rule categories fw-gen accepts. */
export const BREAKING_CATEGORIES = ['FILE', 'PACKAGE', 'WIRE_JSON', 'WIRE'] as const;
/** One of `BREAKING_CATEGORIES`. */
export type BreakingCategory = (typeof BREAKING_CATEGORIES)[number];

/** Validates `--breaking`. */
export function parseBreakingCategory(value: string): BreakingCategory {
  const found = BREAKING_CATEGORIES.find((c) => c === value.toUpperCase());
  if (found === undefined) throw new InputError(`fw-gen: --breaking must be one of ${BREAKING_CATEGORIES.join(', ')} (got "${value}")`);
  return found;
}

/** What to compare. */
export interface BreakingRequest {
  args: readonly string[];
  protoPath: readonly string[];
  cwd: string;
  ref: string;
  category: BreakingCategory;
  /** Absolute stub directory: removed RPCs name the handler the stub still has. */
  stubDir: string;
}

async function image(inputs: Inputs, cwd: string): Promise<Uint8Array> {
  const ws = createWorkspace(
    inputs.roots,
    inputs.files.map((f) => f.absolute),
  );
  try {
    return await bufBuild(ws, workspaceTargets(ws, inputs), cwd, 'image');
  } finally {
    ws.dispose();
  }
}

interface BufFailure {
  path?: string;
  start_line?: number;
  start_column?: number;
  type?: string;
  message?: string;
}

function runBreaking(current: string, against: string, category: BreakingCategory): Promise<BufFailure[]> {
  const config = JSON.stringify({ version: 'v2', breaking: { use: [category] } });
  const args = ['breaking', current, '--against', against, '--config', config, '--error-format', 'json', '--exclude-imports'];
  const buf = resolveBuf();
  return new Promise((resolve, reject) => {
    const child = spawn(buf.file, [...buf.prefix, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => reject(new Error(`fw-gen: cannot run buf: ${e.message}`)));
    child.on('close', (code) => {
      // buf exits 100 when it found breaking changes.
      if (code !== 0 && code !== 100) {
        reject(new Error(`fw-gen: buf breaking failed with status ${String(code)}: ${Buffer.concat(err).toString('utf8').trim()}`));
        return;
      }
      const failures: BufFailure[] = [];
      for (const line of Buffer.concat(out).toString('utf8').split('\n')) {
        if (line.trim() !== '') failures.push(JSON.parse(line) as BufFailure);
      }
      resolve(failures);
    });
  });
}

/** Maps a root-relative proto path back to the path the user wrote, relative to `cwd`. */
function displayPath(rel: string, inputs: Inputs, cwd: string): string {
  const file = inputs.files.find((f) => f.relative === rel);
  return file !== undefined ? path.relative(cwd, file.absolute) : rel;
}

/**
 * The breaking changes since `ref`, one line each; empty when there are none
 * (also when none of the inputs existed at `ref`).
 */
export async function breakingChanges(request: BreakingRequest): Promise<string[]> {
  const { cwd } = request;
  const tree = protosAtRevision(request.ref, cwd);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-gen-breaking-'));
  try {
    const inputs = collectInputs(request.args, [...request.protoPath], cwd);
    // The same arguments, pointed at the revision's copy of the repository; a root outside it is not versioned there and stays as it is.
    const atRef = (p: string): string => {
      const real = fs.realpathSync(path.resolve(cwd, p));
      const rel = path.relative(tree.top, real);
      return rel.startsWith('..') || path.isAbsolute(rel) ? real : path.join(tree.dir, rel);
    };
    const oldArgs = request.args.map(atRef).filter((p) => fs.existsSync(p));
    if (oldArgs.length === 0) return [];
    const oldInputs = collectInputs(oldArgs, request.protoPath.map(atRef).filter((p) => fs.existsSync(p)), tree.dir);
    if (oldInputs.files.length === 0) return [];
    const [now, then] = await Promise.all([image(inputs, cwd), image(oldInputs, tree.dir)]);
    const currentFile = path.join(tmp, 'current.binpb');
    const againstFile = path.join(tmp, 'against.binpb');
    fs.writeFileSync(currentFile, now);
    fs.writeFileSync(againstFile, then);
    const lines = (await runBreaking(currentFile, againstFile, request.category)).map(
      (f) => `${displayPath(f.path ?? '', inputs, cwd)}:${f.start_line ?? 1}:${f.start_column ?? 1}: ${f.type ?? 'BREAKING'}: ${f.message ?? ''}`,
    );
    const userFiles = new Set([...inputs.files, ...oldInputs.files].map((f) => f.relative));
    for (const gone of removedRpcs(then, now, userFiles)) {
      const stub = path.join(request.stubDir, `${gone.file.replace(/\.proto$/, '')}.service.ts`);
      const stubText = fs.existsSync(stub) ? fs.readFileSync(stub, 'utf8') : '';
      const handler = new RegExp(`\\b${gone.handler}\\s*\\(`).test(stubText)
        ? `; its handler ${gone.handler} in ${path.relative(cwd, stub)} is kept by fw-gen: delete it or restore the RPC`
        : '';
      lines.push(`${displayPath(gone.file, inputs, cwd)}:${gone.line}:${gone.column}: RPC_REMOVED: RPC "${gone.method}" on service "${gone.service}" was removed${handler}.`);
    }
    return lines;
  } finally {
    tree.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
