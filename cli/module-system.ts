/**
 * Which module system the generated code is written for. CommonJS code uses
 * extensionless relative imports (`./user`); ES modules under Node's
 * resolution (`"type": "module"`, `module: nodenext`) must name the emitted
 * file (`./user.js`), which TypeScript maps back to `user.ts`.
 *
 * Detected from the project that receives the code: the nearest
 * package.json's `type` decides how Node loads `.js` files, and a tsconfig
 * `module` of `es2015`…`esnext` or `preserve` means ES output too. `--module`
 * overrides both (docs/codegen.md "Module systems").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from './cli-error';

export type ModuleSystem = 'commonjs' | 'esm';

/** How a project's module system was decided, for messages. */
export interface ModuleSystemChoice {
  system: ModuleSystem;
  /** `--module`, `package.json "type"`, `tsconfig.json "module"` or `default`. */
  source: string;
}

/** Parses the `--module` flag's value. */
export function parseModuleFlag(value: string): ModuleSystem {
  const v = value.toLowerCase();
  if (v === 'esm' || v === 'es' || v === 'module') return 'esm';
  if (v === 'cjs' || v === 'commonjs') return 'commonjs';
  throw new InputError(`fw-gen: --module ${value}: expected esm or commonjs`);
}

/** The nearest file named `name` in `dir` or above it (bounded walk). */
function nearest(dir: string, name: string): string | undefined {
  let current = dir;
  for (let i = 0; i < 64; i++) {
    const candidate = path.join(current, name);
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
  return undefined;
}

/** A tsconfig's own `compilerOptions.module` (comments allowed; `extends` is not followed). */
function tsconfigModule(file: string): string | undefined {
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|(^|[^:"])\/\/.*$/gm, '$1');
  const match = /"module"\s*:\s*"([^"]+)"/i.exec(text);
  return match?.[1]?.toLowerCase();
}

/**
 * The module system of the project around `dir`.
 * @example
 * detectModuleSystem(process.cwd()); // { system: 'esm', source: 'package.json "type"' }
 */
export function detectModuleSystem(dir: string, forced?: ModuleSystem): ModuleSystemChoice {
  if (forced !== undefined) return { system: forced, source: '--module' };
  const manifest = nearest(dir, 'package.json');
  if (manifest !== undefined) {
    try {
      const type = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { type?: unknown }).type;
      if (type === 'module') return { system: 'esm', source: 'package.json "type"' };
    } catch {
      // An unreadable package.json says nothing about the module system.
    }
  }
  // Only a tsconfig inside the same package counts.
  const tsconfig = nearest(dir, 'tsconfig.json');
  if (tsconfig !== undefined && (manifest === undefined || !path.relative(path.dirname(manifest), tsconfig).startsWith('..'))) {
    const module = tsconfigModule(tsconfig);
    if (module !== undefined && (module.startsWith('es') || module === 'preserve')) return { system: 'esm', source: 'tsconfig.json "module"' };
  }
  return { system: 'commonjs', source: 'default' };
}

/** The suffix of relative import specifiers in generated code. */
export function importSuffix(system: ModuleSystem): string {
  return system === 'esm' ? '.js' : '';
}
