/** Import specifiers between generated files. */
import * as path from 'node:path';

/**
 * Import specifier from the generated file at `fromStem` to the module `toStem`
 * (both root-relative, no extension); `suffix` is `.js` for ES modules.
 */
export function relativeModule(fromStem: string, toStem: string, suffix = ''): string {
  const rel = path.posix.relative(path.posix.dirname(fromStem), toStem) + suffix;
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Import specifier from `fromFile` (absolute) to `toFileNoExt` (absolute, no extension). */
export function importSpecifier(fromFile: string, toFileNoExt: string, suffix = ''): string {
  const rel = path.relative(path.dirname(fromFile), toFileNoExt).split(path.sep).join('/') + suffix;
  return rel.startsWith('.') ? rel : `./${rel}`;
}
