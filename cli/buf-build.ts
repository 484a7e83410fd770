/**
 * Stage 1: `buf build` → the FileDescriptorSet bytes of the inputs and their
 * imports, with source info (comments) kept. Compile errors come back as
 * `file:line:col: message` lines with paths remapped to the user's tree.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from './cli-error';
import type { Inputs } from './collect-inputs';
import type { Workspace } from './include-root';

let bufCommand: { file: string; prefix: string[] } | undefined;

/** The platform binary when installed (saves ~110 ms), else the Node wrapper. */
export function resolveBuf(): { file: string; prefix: string[] } {
  if (bufCommand !== undefined) return bufCommand;
  const platform = process.platform === 'win32' ? 'win32' : process.platform;
  const binary = process.platform === 'win32' ? 'buf.exe' : 'buf';
  try {
    const pkg = path.dirname(require.resolve(`@bufbuild/buf-${platform}-${process.arch}/package.json`));
    const file = path.join(pkg, 'bin', binary);
    if (fs.existsSync(file)) {
      bufCommand = { file, prefix: [] };
      return bufCommand;
    }
  } catch {
    // Fall through to the wrapper, which finds the binary itself.
  }
  const wrapper = path.join(path.dirname(require.resolve('@bufbuild/buf/package.json')), 'bin', 'buf');
  bufCommand = { file: process.execPath, prefix: [wrapper] };
  return bufCommand;
}

interface BufJsonError {
  path?: string;
  start_line?: number;
  start_column?: number;
  message?: string;
}

function remapPath(p: string, ws: Workspace, cwd: string): string {
  const slash = p.indexOf('/');
  if (slash > 0) {
    const root = ws.modules.get(p.slice(0, slash));
    if (root !== undefined) return path.relative(cwd, path.join(root, p.slice(slash + 1))) || p;
  }
  return p;
}

/**
 * For an import buf could not find: which file, where it was looked for, and
 * how to add a root. The import's name is read from the reported line.
 */
function missingImportHint(where: string, line: number, ws: Workspace, cwd: string): string {
  let name = 'the imported file';
  try {
    const text = fs.readFileSync(path.resolve(cwd, where), 'utf8').split('\n')[line - 1] ?? '';
    const m = /import\s+(?:public\s+|weak\s+)?"([^"]+)"/.exec(text);
    if (m?.[1] !== undefined) name = `"${m[1]}"`;
  } catch {
    // The hint names the file generically then.
  }
  const roots = [...ws.modules.values()].map((r) => path.relative(cwd, r) || '.');
  return `  ${name} was looked for in ${roots.join(', ')} (import roots) and among the protos fw-gen brings (google/... from google-proto-files, buf/validate/validate.proto); if it lives elsewhere, add its root with -I <dir>`;
}

function formatErrors(output: string, ws: Workspace, cwd: string): string {
  const lines: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    try {
      const e = JSON.parse(line) as BufJsonError;
      const where = e.path !== undefined ? remapPath(e.path, ws, cwd) : '<input>';
      lines.push(`${where}:${e.start_line ?? 1}:${e.start_column ?? 1}: ${e.message ?? 'error'}`);
      if (/import.*(does not exist|not found)/i.test(e.message ?? '')) lines.push(missingImportHint(where, e.start_line ?? 1, ws, cwd));
    } catch {
      lines.push(line.replace(/\bsrc\d+\/[^\s:]+/g, (m) => remapPath(m, ws, cwd)));
    }
  }
  return lines.join('\n');
}

/** The module-relative paths (`src0/user.proto`) of the inputs inside `ws`. */
export function workspaceTargets(ws: Workspace, inputs: Inputs): string[] {
  const moduleOfRoot = new Map<string, string>();
  for (const [name, root] of ws.modules) moduleOfRoot.set(root, name);
  return inputs.files.map((f) => `${moduleOfRoot.get(f.root) ?? 'src0'}/${f.relative}`);
}

/**
 * Builds the given module-relative files (`src0/user.proto`) in `ws`.
 * Asynchronous, so the caller loads its later stages while buf works.
 * @returns the encoded FileDescriptorSet, files in dependency order
 * @throws InputError with `file:line:col: message` lines on compile errors
 */
export function bufBuild(ws: Workspace, targets: readonly string[], cwd: string, format: 'descriptor-set' | 'image' = 'descriptor-set'): Promise<Uint8Array> {
  const config = JSON.stringify({ version: 'v2', modules: ws.moduleNames.map((p) => ({ path: p })) });
  const out = path.join(ws.dir, 'image.binpb');
  // A buf image also marks which files are imports, which `buf breaking --exclude-imports` reads.
  const args = ['build', '--config', config, '--error-format', 'json', ...(format === 'image' ? [] : ['--as-file-descriptor-set']), '-o', out];
  for (const t of targets) args.push('--path', t);
  args.push('.');
  const buf = resolveBuf();
  return new Promise((resolve, reject) => {
    const child = spawn(buf.file, [...buf.prefix, ...args], { cwd: ws.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => output.push(c));
    child.stderr.on('data', (c: Buffer) => output.push(c));
    child.on('error', (e) => reject(new Error(`fw-gen: cannot run buf: ${e.message}`)));
    child.on('close', (code) => {
      if (code !== 0) {
        const text = formatErrors(Buffer.concat(output).toString('utf8'), ws, cwd);
        reject(new InputError(text === '' ? `fw-gen: buf build failed with status ${String(code)}` : text));
        return;
      }
      try {
        resolve(fs.readFileSync(out));
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}
