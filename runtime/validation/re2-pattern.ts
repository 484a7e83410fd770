/**
 * `string.pattern` and `bytes.pattern` match with RE2 semantics (linear
 * time, no backreferences), as protovalidate does: @bufbuild/re2, the
 * engine it uses, loaded on the first pattern and each pattern compiled once.
 */
import type { RE2JS } from '@bufbuild/re2';

const compiled = new Map<string, RE2JS>();
let engine: typeof RE2JS | undefined;

export function re2Matches(pattern: string, text: string): boolean {
  let re = compiled.get(pattern);
  if (re === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    engine ??= (require('@bufbuild/re2') as typeof import('@bufbuild/re2')).RE2JS;
    re = engine.compile(pattern);
    compiled.set(pattern, re);
  }
  return re.test(text);
}
