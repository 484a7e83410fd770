/** Import specifiers between generated files. */
import * as path from 'node:path';

/** Import specifier from the generated file at `fromStem` to the module `toStem` (both root-relative, no extension). */
export function relativeModule(fromStem: string, toStem: string): string {
  const rel = path.posix.relative(path.posix.dirname(fromStem), toStem);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Import specifier from `fromFile` (absolute) to `toFileNoExt` (absolute, no extension). */
export function importSpecifier(fromFile: string, toFileNoExt: string): string {
  const rel = path.relative(path.dirname(fromFile), toFileNoExt).split(path.sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}
