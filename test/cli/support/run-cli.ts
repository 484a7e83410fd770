/**
 * Test helpers: run the real fw-gen CLI in a child process and make temp
 * copies of proto trees. Every run is bounded by a timeout.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const RUNNER = path.join(__dirname, 'cli-runner.js');

/** What one CLI run printed and returned. */
export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `fw-gen …args` in `cwd` (default: the repo root). */
export function runCli(args: readonly string[], cwd: string = REPO_ROOT): CliResult {
  const result = spawnSync(process.execPath, [RUNNER, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  if (result.error !== undefined) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh temp directory under the OS temp dir; removed by `removeTemp`. */
export function makeTemp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `fw-gen-test-${prefix}-`));
}

/** Removes a directory made by `makeTemp`. */
export function removeTemp(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Copies a directory tree (bounded depth). */
export function copyTree(from: string, to: string, depth = 0): void {
  if (depth > 16) return;
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const a = path.join(from, entry.name);
    const b = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(a, b, depth + 1);
    else fs.copyFileSync(a, b);
  }
}

/** All files under `dir`, relative, sorted. */
export function listTree(dir: string, base = dir, depth = 0): string[] {
  if (depth > 16 || !fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTree(full, base, depth + 1));
    else out.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return out.sort();
}
