/**
 * ts-proto skips a float or double field when it `!== 0`, and `-0 !== 0` is
 * false: a -0 would be dropped from the binary encoding, where protobuf (and
 * @bufbuild/protobuf) writes it, its sign bit being a value. This rewrites
 * those checks in ts-proto's output to keep -0.
 */

const FLOAT_PRESENCE = /if \((message\.\w+) !== 0\) \{(\n\s*writer\.uint32\(\d+\)\.(?:float|double)\()/g;

/** ts-proto's `x.ts` text with every float/double `!== 0` check also letting -0 through. */
export function keepNegativeZero(source: string): string {
  return source.replace(FLOAT_PRESENCE, 'if ($1 !== 0 || Object.is($1, -0)) {$2');
}
