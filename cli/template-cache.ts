/**
 * Precompiled handlebars templates, cached on disk so that a run loads only
 * handlebars' small runtime: compiling the four templates with the full
 * compiler costs more than the rest of rendering. The cache lives in the
 * package's `node_modules/.cache/fw-gen` (the usual tool cache location),
 * keyed by a hash of the template, the options and the handlebars version;
 * when it cannot be written, templates are simply compiled each run.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from './package-root';

/** A compiled template. */
export type Template = (view: object) => string;

const OPTIONS = { noEscape: true, strict: true } as const;

function cacheFile(source: string, version: string): string {
  const key = createHash('sha256').update(version).update('\0').update(JSON.stringify(OPTIONS)).update('\0').update(source).digest('hex');
  return path.join(packageRoot(), 'node_modules', '.cache', 'fw-gen', `${key.slice(0, 32)}.js`);
}

function handlebarsVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('handlebars/package.json') as { version: string }).version;
}

/** Compiles `source` (or loads its precompiled form) with `noEscape` and `strict`. */
export function compileTemplate(source: string): Template {
  const file = cacheFile(source, handlebarsVersion());
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (fs.existsSync(file)) {
    try {
      const runtime = require('handlebars/runtime') as typeof import('handlebars/runtime');
      return runtime.template(require(file) as TemplateSpecification);
    } catch {
      // A damaged cache entry is ignored and rewritten below.
    }
  }
  const Handlebars = require('handlebars') as typeof import('handlebars');
  /* eslint-enable @typescript-eslint/no-require-imports */
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Write-then-rename: a concurrent run never reads a half-written entry.
    const partial = `${file}.${process.pid}`;
    fs.writeFileSync(partial, `module.exports = ${String(Handlebars.precompile(source, OPTIONS))};\n`);
    fs.renameSync(partial, file);
  } catch {
    // Read-only install: compile every run.
  }
  return Handlebars.compile(source, OPTIONS);
}
