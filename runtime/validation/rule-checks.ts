/**
 * What the validators fw-gen compiles from buf.validate rules call at run
 * time: the few checks that are not one comparison (lengths in code points
 * and UTF-8 bytes, byte-string tests, uniqueness, RE2 patterns, the
 * well-known string formats) and the formatting of map keys in field paths.
 * Everything a message text needs is fixed when fw-gen compiles the rules,
 * so nothing here builds text on the valid path.
 *
 * The well-known formats (email, hostname, IP, URI…) and RE2 are
 * @bufbuild/protovalidate's own: a compiled validator must say what the
 * interpreter says, so it asks the same functions. They load on first use.
 */
import { isEmail, isHostAndPort, isHostname, isIp, isIpPrefix, isUri, isUriRef } from './protovalidate-formats';
import { re2Matches } from './re2-pattern';

/** Number of Unicode code points: what `size(string)` counts in the rules. */
export function chars(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) i++;
    }
    n++;
  }
  return n;
}

/** Length of the UTF-8 encoding (a lone surrogate counts as U+FFFD, three bytes). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Strict equality against each member: NaN is in no list (not SameValueZero). */
export function inList<T>(list: readonly T[], value: T): boolean {
  for (let i = 0; i < list.length; i++) if (list[i] === value) return true;
  return false;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function bytesInList(list: readonly Uint8Array[], value: Uint8Array): boolean {
  for (const member of list) if (bytesEqual(member, value)) return true;
  return false;
}

export function bytesStartWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

export function bytesEndWith(bytes: Uint8Array, suffix: Uint8Array): boolean {
  if (suffix.length > bytes.length) return false;
  const offset = bytes.length - suffix.length;
  for (let i = 0; i < suffix.length; i++) if (bytes[offset + i] !== suffix[i]) return false;
  return true;
}

export function bytesContain(bytes: Uint8Array, part: Uint8Array): boolean {
  if (part.length === 0) return true;
  outer: for (let i = 0; i + part.length <= bytes.length; i++) {
    for (let j = 0; j < part.length; j++) if (bytes[i + j] !== part[j]) continue outer;
    return true;
  }
  return false;
}

/** No two items equal (`===`; floats: NaN never equals NaN). */
export function unique(items: readonly unknown[]): boolean {
  if (items.length < 2) return true;
  if (items.length <= 16) {
    for (let i = 1; i < items.length; i++) for (let j = 0; j < i; j++) if (items[i] === items[j]) return false;
    return true;
  }
  const seen = new Set<unknown>();
  let added = 0;
  for (const item of items) {
    // A Set would take NaN as equal to NaN; `===` does not.
    if (typeof item === 'number' && Number.isNaN(item)) continue;
    seen.add(item);
    if (seen.size !== ++added) return false;
  }
  return true;
}

/** No two byte strings equal. */
export function uniqueBytes(items: readonly Uint8Array[]): boolean {
  for (let i = 1; i < items.length; i++) for (let j = 0; j < i; j++) if (bytesEqual(items[i] as Uint8Array, items[j] as Uint8Array)) return false;
  return true;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The text a `bytes.pattern` is matched against; bytes that are not UTF-8 cannot be matched at all (an error, not a violation). */
export function utf8Text(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch (cause) {
    throw new Error('must be valid UTF-8 to apply regexp', { cause });
  }
}

/** RE2 semantics, as `string.pattern` requires. */
export const matches = re2Matches;

/** The well-known string formats, as buf.validate defines them. */
export const formats = {
  email: (s: string): boolean => isEmail(s),
  hostname: (s: string): boolean => isHostname(s),
  ip: (s: string, version?: 4 | 6): boolean => isIp(s, version),
  ipPrefix: (s: string, version: 4 | 6 | undefined, strict: boolean): boolean => isIpPrefix(s, version, strict),
  uri: (s: string): boolean => isUri(s),
  uriRef: (s: string): boolean => isUriRef(s),
  hostAndPort: (s: string): boolean => isHostAndPort(s, true),
};

/** A map key as a field path writes it: strings quoted and escaped, numbers and bools bare. */
export function keyPath(key: string | number | bigint | boolean): string {
  if (typeof key !== 'string') return `[${String(key)}]`;
  return `["${key.split('\\').join('\\\\').split('"').join('\\"').split('\r').join('\\r').split('\n').join('\\n')}"]`;
}

/**
 * The keys of a ts-proto `Map` (bool and 64-bit keys) in the order the same
 * entries take in a plain object, which is how @bufbuild/protobuf holds
 * every map: array-index keys ascending first, then the rest as inserted.
 */
export function objectKeyOrder<K>(map: ReadonlyMap<K, unknown>): K[] {
  const index: K[] = [];
  const rest: K[] = [];
  for (const key of map.keys()) {
    const text = String(key);
    const n = Number(text);
    if (text === String(n >>> 0) && n !== 4294967295) index.push(key);
    else rest.push(key);
  }
  index.sort((a, b) => Number(a) - Number(b));
  return index.concat(rest);
}

/** A map's entry keys in @bufbuild/protobuf's iteration order, as strings for plain objects. */
export function mapKeys(map: ReadonlyMap<unknown, unknown> | Readonly<Record<string, unknown>>): unknown[] {
  return map instanceof Map ? objectKeyOrder(map) : Object.keys(map);
}

/** A Duration or Timestamp as ts-proto gives it. */
export interface Time {
  readonly seconds: bigint;
  readonly nanos: number;
}

/** Negative, zero or positive as `a` is before, at or after `b`. */
export function compareTime(a: Time, b: Time): number {
  return a.seconds < b.seconds ? -1 : a.seconds > b.seconds ? 1 : a.nanos - b.nanos;
}

export function timeInList(list: readonly Time[], value: Time): boolean {
  for (const member of list) if (compareTime(member, value) === 0) return true;
  return false;
}

/** The current time, as a Timestamp. */
export function now(): Time {
  const ms = Date.now();
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

function addTime(a: Time, b: Time, sign: 1 | -1): Time {
  let seconds = a.seconds + BigInt(sign) * b.seconds;
  let nanos = a.nanos + sign * b.nanos;
  if (nanos >= 1_000_000_000) (nanos -= 1_000_000_000), (seconds += 1n);
  if (nanos < 0) (nanos += 1_000_000_000), (seconds -= 1n);
  return { seconds, nanos };
}

/** True when `value` is no further than `window` from now. */
export function withinOfNow(value: Time, window: Time): boolean {
  const current = now();
  return compareTime(value, addTime(current, window, -1)) >= 0 && compareTime(value, addTime(current, window, 1)) <= 0;
}

/** FieldMask `const`: the same paths in the same order. */
export function samePaths(paths: readonly string[], expected: readonly string[]): boolean {
  return paths.length === expected.length && paths.every((p, i) => p === expected[i]);
}

function covered(path: string, by: readonly string[]): boolean {
  return by.some((f) => path === f || path.startsWith(`${f}.`));
}

/** FieldMask `in`: every path is one of `allowed` or below one. */
export function pathsWithin(paths: readonly string[], allowed: readonly string[]): boolean {
  return paths.every((p) => covered(p, allowed));
}

/** FieldMask `not_in`: some path is one of `blocked` or below one. */
export function pathsTouch(paths: readonly string[], blocked: readonly string[]): boolean {
  return paths.some((p) => covered(p, blocked));
}
