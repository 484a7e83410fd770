/**
 * Seeded random messages aimed at the buf.validate rules on their fields:
 * every field's rules are read from its descriptor and its value is drawn
 * around every bound they name (exactly at, one step inside, one step
 * outside), from the constants they list (const, in, not_in, prefix, ...),
 * from lists of valid and invalid samples of each well-known string format,
 * or is a zero, empty, unset or extreme value (64-bit limits, NaN,
 * ±Infinity, -0, astral code points). Lists and maps get as many entries as
 * their bounds make interesting, with repeated items for `unique`; oneofs get
 * none, one or each of their members. Values relative to now (lt_now,
 * gt_now, within) stay at least a minute from their boundary, so a case
 * gives the same verdict however long it waits to be validated.
 */
import { create, isMessage, ScalarType, type DescEnum, type DescField, type DescMessage, type Message } from '@bufbuild/protobuf';
import { getOption } from '@bufbuild/protobuf';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { DurationSchema, FieldMaskSchema, TimestampSchema, type Duration, type Timestamp } from '@bufbuild/protobuf/wkt';
import { field as fieldRulesExtension, type FieldRules } from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';

type Rand = () => number;

export interface RuleValueOptions {
  /** Message fields are followed this deep at most (recursive types end here). */
  readonly maxDepth: number;
  /** Epoch milliseconds that lt_now, gt_now and within are probed against. */
  readonly now: number;
}

const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const chance = (rand: Rand, p: number): boolean => rand() < p;
const intIn = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

/** The buf.validate rules on `field` (an empty FieldRules when it has none). */
export function fieldRules(field: DescField): FieldRules {
  return getOption(field, fieldRulesExtension);
}

// ---- numbers ---------------------------------------------------------------

interface IntRange {
  readonly min: bigint;
  readonly max: bigint;
  readonly big: boolean;
}

const INT_RANGES: Partial<Record<ScalarType, IntRange>> = {
  [ScalarType.INT32]: { min: -(2n ** 31n), max: 2n ** 31n - 1n, big: false },
  [ScalarType.SINT32]: { min: -(2n ** 31n), max: 2n ** 31n - 1n, big: false },
  [ScalarType.SFIXED32]: { min: -(2n ** 31n), max: 2n ** 31n - 1n, big: false },
  [ScalarType.UINT32]: { min: 0n, max: 2n ** 32n - 1n, big: false },
  [ScalarType.FIXED32]: { min: 0n, max: 2n ** 32n - 1n, big: false },
  [ScalarType.INT64]: { min: -(2n ** 63n), max: 2n ** 63n - 1n, big: true },
  [ScalarType.SINT64]: { min: -(2n ** 63n), max: 2n ** 63n - 1n, big: true },
  [ScalarType.SFIXED64]: { min: -(2n ** 63n), max: 2n ** 63n - 1n, big: true },
  [ScalarType.UINT64]: { min: 0n, max: 2n ** 64n - 1n, big: true },
  [ScalarType.FIXED64]: { min: 0n, max: 2n ** 64n - 1n, big: true },
};

/** Every number the numeric rules of `rules` name: const, bounds, in and not_in. */
function ruleNumbers(rules: FieldRules | undefined): Array<number | bigint> {
  const out: Array<number | bigint> = [];
  const type = rules?.type;
  if (type === undefined || type.case === undefined) return out;
  switch (type.case) {
    case 'float':
    case 'double':
    case 'int32':
    case 'int64':
    case 'uint32':
    case 'uint64':
    case 'sint32':
    case 'sint64':
    case 'fixed32':
    case 'fixed64':
    case 'sfixed32':
    case 'sfixed64': {
      const r = type.value;
      out.push(r.const, ...r.in, ...r.notIn);
      if (r.lessThan.case !== undefined) out.push(r.lessThan.value);
      if (r.greaterThan.case !== undefined) out.push(r.greaterThan.value);
      // Halfway between two bounds: inside a range, or in the gap an inverted (exclusive) range leaves out.
      if (r.lessThan.case !== undefined && r.greaterThan.case !== undefined) {
        const [hi, lo] = [r.lessThan.value, r.greaterThan.value];
        out.push(typeof hi === 'bigint' && typeof lo === 'bigint' ? (hi + lo) / 2n : (Number(hi) + Number(lo)) / 2);
      }
      return out;
    }
    case 'enum':
      out.push(type.value.const, ...type.value.in, ...type.value.notIn);
      return out;
    default:
      return out;
  }
}

/** The float next to `x` towards +Infinity (dir 1) or -Infinity (dir -1), in float32 or float64. */
function nextFloat(x: number, dir: 1 | -1, single: boolean): number {
  if (Number.isNaN(x) || x === dir * Infinity) return x;
  if (x === 0) return dir * (single ? 1.401298464324817e-45 : Number.MIN_VALUE);
  const view = new DataView(new ArrayBuffer(8));
  if (single) {
    view.setFloat32(0, x);
    const bits = view.getInt32(0);
    view.setInt32(0, (x > 0) === (dir > 0) ? bits + 1 : bits - 1);
    return view.getFloat32(0);
  }
  view.setFloat64(0, x);
  const bits = view.getBigInt64(0);
  view.setBigInt64(0, (x > 0) === (dir > 0) ? bits + 1n : bits - 1n);
  return view.getFloat64(0);
}

const FLOAT_EXTREMES = [0, -0, 1, -1, NaN, Infinity, -Infinity, 3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45, 0.1];
const DOUBLE_EXTREMES = [0, -0, 1, -1, NaN, Infinity, -Infinity, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 0.1, 2 ** 53 + 2];

function floatValue(rand: Rand, single: boolean, rules: FieldRules | undefined): number {
  const round = single ? Math.fround : (x: number): number => x;
  const anchors = ruleNumbers(rules).map(Number);
  const finite = (rules?.type.case === 'float' || rules?.type.case === 'double') && rules.type.value.finite;
  if (finite && chance(rand, 0.2)) return pick(rand, [NaN, Infinity, -Infinity]);
  if (anchors.length > 0 && chance(rand, 0.7)) {
    const at = pick(rand, anchors);
    const step = pick(rand, [0, 0, 1, -1, 0.5, -0.5, 'up', 'down'] as const);
    if (step === 'up') return nextFloat(at, 1, single);
    if (step === 'down') return nextFloat(at, -1, single);
    return round(at + step);
  }
  if (chance(rand, 0.6)) return round(pick(rand, single ? FLOAT_EXTREMES : DOUBLE_EXTREMES));
  return round((rand() - 0.5) * 10 ** intIn(rand, -3, 6));
}

function intValue(rand: Rand, range: IntRange, rules: FieldRules | undefined): number | bigint {
  const clamp = (v: bigint): bigint => (v < range.min ? range.min : v > range.max ? range.max : v);
  let value: bigint;
  const anchors = ruleNumbers(rules).map((n) => (typeof n === 'bigint' ? n : BigInt(Math.trunc(n))));
  if (anchors.length > 0 && chance(rand, 0.7)) {
    value = clamp(pick(rand, anchors) + BigInt(pick(rand, [0, 0, 1, -1, 2, -2])));
  } else if (chance(rand, 0.6)) {
    value = clamp(pick(rand, [0n, 1n, -1n, range.min, range.max, range.min + 1n, range.max - 1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n]));
  } else {
    value = clamp(BigInt(intIn(rand, -1000, 1000)));
  }
  return range.big ? value : Number(value);
}

// ---- strings and bytes -----------------------------------------------------

/** Code points of 1, 2, 3 and 4 UTF-8 bytes (the last two UTF-16 units): length rules count them differently. */
const CHARS_BY_BYTES = [['a', 'Z', '0', ' ', '-'], ['é', 'ü', 'ß'], ['€', '日', '\u2028'], ['😀', '𝄞']] as const;

function randomChar(rand: Rand): string {
  return pick(rand, pick(rand, CHARS_BY_BYTES));
}

/** A string of exactly `n` code points, or of exactly `bytes` UTF-8 bytes when `byByte`. */
function stringOfLength(rand: Rand, n: number, byByte: boolean): string {
  if (n <= 0) return '';
  if (!byByte) return Array.from({ length: n }, () => randomChar(rand)).join('');
  let out = '';
  let left = n;
  while (left > 0) {
    const width = intIn(rand, 1, Math.min(4, left));
    out += pick(rand, CHARS_BY_BYTES[width - 1] ?? CHARS_BY_BYTES[0]);
    left -= width;
  }
  return out;
}

const TRICKY_STRINGS = ['a', 'abc', 'ABC', 'AB', 'abc1', 'abc12', 'a b', 'pre', 'fix', 'mid', 'bad', 'ü', 'é', '😀', '😀😀', 'a😀', 'x', 'y', 'root', 'k1', 'kk', 'line\nbreak', '\u0000', 'ab', 'abcabc', 'cab', 'abcc', ' a', 'a '];

/** Valid and invalid samples of every well-known string format protovalidate checks. */
const FORMAT_SAMPLES: Readonly<Record<string, readonly string[]>> = {
  email: ['a@b.co', 'user.name+tag@example.com', 'a@localhost', '@example.com', 'a@', 'a b@c.de', 'a@b..c', 'ü@example.com', 'a@-b.com', 'a@b.c-', `${'x'.repeat(65)}@a.com`, 'a@b', '"q"@example.com', 'a@[1.2.3.4]', 'a@b.co\n'],
  hostname: ['example.com', 'a.b.c', 'localhost', '-bad.com', 'bad-.com', 'a..b', 'xn--bcher-kva.example', '123.com', 'a.123', 'ex_ample.com', `${'a'.repeat(64)}.com`, `${'a'.repeat(63)}.com`, 'example.com.', 'ü.com', '.', 'A-B.C'],
  ip: ['192.168.0.1', '255.255.255.255', '0.0.0.0', '256.1.1.1', '1.2.3', '01.2.3.4', '::1', '2001:db8::1', '::ffff:1.2.3.4', 'fe80::1%eth0', ':::', '1::2::3', '::', '1.2.3.4/8', '2001:DB8:0:0:0:0:0:1', '1:2:3:4:5:6:7:8:9', ' 1.2.3.4'],
  uri: ['https://example.com/path?q=1#f', 'http://[::1]:80/', 'mailto:a@b.c', 'urn:isbn:123', '/relative', 'ht tp://x', 'https://exa mple.com', 'https://example.com/%zz', 'a:b', '//host/path', '?q', '#frag', 'https://ü.example/', 'https://example.com:99999', 'https://user@host:8080/p', 'file:///etc/hosts', '\\\\share', 'https://[::1', '1http://x'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000', '123E4567-E89B-12D3-A456-426614174000', '123e4567e89b12d3a456426614174000', '123e4567-e89b-12d3-a456-42661417400', 'g23e4567-e89b-12d3-a456-426614174000', '00000000-0000-0000-0000-000000000000', '123e4567-e89b-12d3-a456_426614174000'],
  tuuid: ['123e4567e89b12d3a456426614174000', '123E4567E89B12D3A456426614174000', '123e4567e89b12d3a45642661417400', '123e4567-e89b-12d3-a456-426614174000', 'z23e4567e89b12d3a456426614174000'],
  prefix: ['192.168.0.1/24', '192.168.0.0/24', '10.0.0.0/33', '10.0.0.1', '10.0.0.0/8', '2001:db8::/32', '2001:db8::1/64', '::/0', '0.0.0.0/0', '1.2.3.4/', '1.2.3.4/08', '::1/129', '::1/128', 'fe80::/10', '1.2.3.4/32'],
  hostAndPort: ['example.com:80', '127.0.0.1:8080', '[::1]:443', '::1:443', 'example.com', 'example.com:', 'example.com:65536', 'example.com:65535', 'example.com:0', '[::1]', 'a:01', 'ü.com:1', '[1.2.3.4]:1'],
  ulid: ['01ARZ3NDEKTSV4RRFFQ69G5FAV', '01arz3ndektsv4rrffq69g5fav', '81ARZ3NDEKTSV4RRFFQ69G5FAV', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', '01ARZ3NDEKTSV4RRFFQ69G5FA', '01ARZ3NDEKTSV4RRFFQ69G5FAI', '01ARZ3NDEKTSV4RRFFQ69G5FAVX'],
  fqn: ['foo.bar', 'foo', 'foo.bar.Baz_1', '.foo.bar', 'foo..bar', '1foo', 'foo.', '_foo', '.foo', '.', '..foo', '.1a', 'ü.x', 'a.b-c'],
  headerName: ['Content-Type', ':authority', 'x_custom', 'bad header', 'a\u0000', 'Ünicode', ':', 'a:b', 'x-a~b!', 'tab\t', 'a\r\nb'],
  headerValue: ['text/html; charset=utf-8', 'tab\tok', 'nul\u0000', 'line\nfeed', 'del\u007f', 'ü', '\r', ' spaced ', 'a\u0001'],
};

const FORMAT_POOLS: Readonly<Record<string, readonly string[]>> = {
  email: FORMAT_SAMPLES['email'] ?? [],
  hostname: FORMAT_SAMPLES['hostname'] ?? [],
  ip: FORMAT_SAMPLES['ip'] ?? [],
  ipv4: FORMAT_SAMPLES['ip'] ?? [],
  ipv6: FORMAT_SAMPLES['ip'] ?? [],
  uri: FORMAT_SAMPLES['uri'] ?? [],
  uriRef: FORMAT_SAMPLES['uri'] ?? [],
  address: [...(FORMAT_SAMPLES['hostname'] ?? []), ...(FORMAT_SAMPLES['ip'] ?? [])],
  uuid: FORMAT_SAMPLES['uuid'] ?? [],
  tuuid: FORMAT_SAMPLES['tuuid'] ?? [],
  ipWithPrefixlen: FORMAT_SAMPLES['prefix'] ?? [],
  ipv4WithPrefixlen: FORMAT_SAMPLES['prefix'] ?? [],
  ipv6WithPrefixlen: FORMAT_SAMPLES['prefix'] ?? [],
  ipPrefix: FORMAT_SAMPLES['prefix'] ?? [],
  ipv4Prefix: FORMAT_SAMPLES['prefix'] ?? [],
  ipv6Prefix: FORMAT_SAMPLES['prefix'] ?? [],
  hostAndPort: FORMAT_SAMPLES['hostAndPort'] ?? [],
  ulid: FORMAT_SAMPLES['ulid'] ?? [],
  protobufFqn: FORMAT_SAMPLES['fqn'] ?? [],
  protobufDotFqn: FORMAT_SAMPLES['fqn'] ?? [],
};

function stringValue(rand: Rand, rules: FieldRules | undefined): string {
  const r = rules?.type.case === 'string' ? rules.type.value : undefined;
  if (r === undefined) return chance(rand, 0.3) ? '' : pick(rand, TRICKY_STRINGS);
  const roll = rand();
  // The format's samples, when the field has one.
  if (r.wellKnown.case !== undefined && roll < 0.45) {
    const pool = r.wellKnown.case === 'wellKnownRegex' ? FORMAT_SAMPLES[r.wellKnown.value === 1 ? 'headerName' : 'headerValue'] : FORMAT_POOLS[r.wellKnown.case];
    return pick(rand, pool ?? TRICKY_STRINGS);
  }
  // Lengths around every length bound, counted in code points or in bytes.
  const lengths: Array<[number, boolean]> = [];
  for (const n of [r.len, r.minLen, r.maxLen]) if (n > 0n) lengths.push([Number(n), false]);
  for (const n of [r.lenBytes, r.minBytes, r.maxBytes]) if (n > 0n) lengths.push([Number(n), true]);
  if (lengths.length > 0 && roll < 0.7) {
    const [n, byByte] = pick(rand, lengths);
    const body = stringOfLength(rand, n + intIn(rand, -1, 1), byByte);
    // Keep a prefix where there is one, so the length is not the only rule probed.
    return r.prefix !== '' && chance(rand, 0.5) ? r.prefix + [...body].slice([...r.prefix].length).join('') : body;
  }
  // The rule's own constants, on their own or inside other text.
  const constants = [r.const, ...r.in, ...r.notIn, r.prefix, r.suffix, r.contains, r.notContains].filter((s) => s !== '');
  if (constants.length > 0 && roll < 0.9) {
    const c = pick(rand, constants);
    switch (intIn(rand, 0, 5)) {
      case 0:
        return c + pick(rand, TRICKY_STRINGS);
      case 1:
        return pick(rand, TRICKY_STRINGS) + c;
      case 2:
        return r.prefix + pick(rand, ['', ...TRICKY_STRINGS]) + c + r.suffix;
      case 3:
        // One code point short (never half a surrogate pair: protobuf-es refuses that as invalid UTF-8).
        return [...c].slice(0, -1).join('');
      default:
        return c;
    }
  }
  return chance(rand, 0.25) ? '' : pick(rand, TRICKY_STRINGS);
}

const bytesOf = (...values: number[]): Uint8Array => Uint8Array.from(values);

function randomBytes(rand: Rand, n: number): Uint8Array {
  return Uint8Array.from({ length: Math.max(0, n) }, () => pick(rand, [0, 1, 0x61, 0x62, 0x7a, 0x80, 0xfe, 0xff, intIn(rand, 0, 255)]));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Bytes that match `^[a-z]+$` or not; the last is not UTF-8 at all, and a pattern on it is a runtime error, not a violation. */
const PATTERN_BYTES = [bytesOf(0x61, 0x62), bytesOf(0x7a), bytesOf(0x41), bytesOf(0x61, 0x31), bytesOf(0xc3, 0xbc), new Uint8Array(0), bytesOf(0x61, 0x80)];

function bytesValue(rand: Rand, rules: FieldRules | undefined): Uint8Array {
  const r = rules?.type.case === 'bytes' ? rules.type.value : undefined;
  if (r === undefined) return chance(rand, 0.3) ? new Uint8Array(0) : randomBytes(rand, intIn(rand, 1, 5));
  const roll = rand();
  if (r.wellKnown.case !== undefined && roll < 0.5) return randomBytes(rand, pick(rand, [0, 4, 4, 16, 16, 3, 5, 15, 17]));
  if (r.pattern !== '' && roll < 0.85) return pick(rand, PATTERN_BYTES);
  const lengths = [r.len, r.minLen, r.maxLen].filter((n) => n > 0n).map(Number);
  if (lengths.length > 0 && roll < 0.7) {
    const body = randomBytes(rand, pick(rand, lengths) + intIn(rand, -1, 1));
    return r.prefix.length > 0 && chance(rand, 0.5) ? concat(r.prefix, body.subarray(r.prefix.length)) : body;
  }
  const constants = [r.const, ...r.in, ...r.notIn, r.prefix, r.suffix, r.contains].filter((b) => b.length > 0);
  if (constants.length > 0 && roll < 0.9) {
    const c = pick(rand, constants);
    switch (intIn(rand, 0, 4)) {
      case 0:
        return concat(c, randomBytes(rand, intIn(rand, 1, 2)));
      case 1:
        return concat(randomBytes(rand, intIn(rand, 1, 2)), c);
      case 2:
        return c.subarray(0, c.length - 1);
      default:
        return c;
    }
  }
  return chance(rand, 0.3) ? new Uint8Array(0) : randomBytes(rand, intIn(rand, 1, 5));
}

// ---- scalars and enums -----------------------------------------------------

/** A value of scalar `type` for a field (or list item, map key or value, wrapper) with `rules`. */
export function scalarValue(rand: Rand, type: ScalarType, rules: FieldRules | undefined): unknown {
  switch (type) {
    case ScalarType.DOUBLE:
      return floatValue(rand, false, rules);
    case ScalarType.FLOAT:
      return floatValue(rand, true, rules);
    case ScalarType.BOOL:
      return chance(rand, 0.5);
    case ScalarType.STRING:
      return stringValue(rand, rules);
    case ScalarType.BYTES:
      return bytesValue(rand, rules);
    default: {
      const range = INT_RANGES[type];
      if (range === undefined) throw new Error(`no range for scalar type ${type}`);
      return intValue(rand, range, rules);
    }
  }
}

function enumValue(rand: Rand, desc: DescEnum, rules: FieldRules | undefined, closed: boolean): number {
  const defined = desc.values.map((v) => v.number);
  // A closed enum's unknown number does not survive the wire as the field's value.
  if (closed) return pick(rand, defined);
  const named = ruleNumbers(rules).map(Number);
  return pick(rand, [...defined, ...defined, ...named, ...named.map((n) => n + 1), 99, -1]);
}

// ---- well-known messages ---------------------------------------------------

const NANOS = 1_000_000_000n;

const totalNanos = (d: { seconds: bigint; nanos: number }): bigint => d.seconds * NANOS + BigInt(d.nanos);

function durationOf(total: bigint): Duration {
  const seconds = total / NANOS;
  return create(DurationSchema, { seconds, nanos: Number(total - seconds * NANOS) });
}

function timestampOf(total: bigint): Timestamp {
  let seconds = total / NANOS;
  let nanos = total - seconds * NANOS;
  if (nanos < 0n) {
    seconds -= 1n;
    nanos += NANOS;
  }
  return create(TimestampSchema, { seconds, nanos: Number(nanos) });
}

/** Total nanoseconds around a bound: at it, a nanosecond or a second either side. */
function aroundBound(rand: Rand, anchors: readonly bigint[]): bigint {
  return pick(rand, anchors) + pick(rand, [0n, 0n, 1n, -1n, NANOS, -NANOS]);
}

function durationValue(rand: Rand, rules: FieldRules | undefined): Duration {
  const anchors: bigint[] = [];
  if (rules?.type.case === 'duration') {
    const r = rules.type.value;
    for (const d of [r.const, ...r.in, ...r.notIn]) if (d !== undefined) anchors.push(totalNanos(d));
    if (r.lessThan.case !== undefined) anchors.push(totalNanos(r.lessThan.value));
    if (r.greaterThan.case !== undefined) anchors.push(totalNanos(r.greaterThan.value));
    if (r.lessThan.case !== undefined && r.greaterThan.case !== undefined) anchors.push((totalNanos(r.lessThan.value) + totalNanos(r.greaterThan.value)) / 2n);
  }
  if (anchors.length > 0 && chance(rand, 0.75)) return durationOf(aroundBound(rand, anchors));
  return durationOf(pick(rand, [0n, 1n, -1n, NANOS, -NANOS, 315_576_000_000n * NANOS, BigInt(intIn(rand, -100, 100)) * NANOS + BigInt(intIn(rand, 0, 999))]));
}

const SECOND = NANOS;
const MINUTE = 60n * SECOND;

function timestampValue(rand: Rand, rules: FieldRules | undefined, options: RuleValueOptions): Timestamp {
  const anchors: bigint[] = [];
  let relative = false;
  if (rules?.type.case === 'timestamp') {
    const r = rules.type.value;
    if (r.const !== undefined) anchors.push(totalNanos(r.const));
    if (r.lessThan.case === 'lt' || r.lessThan.case === 'lte') anchors.push(totalNanos(r.lessThan.value));
    if (r.greaterThan.case === 'gt' || r.greaterThan.case === 'gte') anchors.push(totalNanos(r.greaterThan.value));
    if ((r.lessThan.case === 'lt' || r.lessThan.case === 'lte') && (r.greaterThan.case === 'gt' || r.greaterThan.case === 'gte')) {
      anchors.push((totalNanos(r.lessThan.value) + totalNanos(r.greaterThan.value)) / 2n);
    }
    relative = r.lessThan.case === 'ltNow' || r.greaterThan.case === 'gtNow' || r.within !== undefined;
  }
  if (relative && chance(rand, 0.8)) {
    // A minute, two hours, two days or a century from now: never within a minute of a `within` of an hour or a day.
    const offset = pick(rand, [MINUTE, 120n * MINUTE, 2880n * MINUTE, 52_560_000n * MINUTE]);
    return timestampOf(BigInt(options.now) * 1_000_000n + (chance(rand, 0.5) ? offset : -offset));
  }
  if (anchors.length > 0 && chance(rand, 0.75)) return timestampOf(aroundBound(rand, anchors));
  return timestampOf(pick(rand, [0n, -1n, 1n, 253_402_300_799n * NANOS, -62_135_596_800n * NANOS, BigInt(intIn(rand, 0, 4000)) * NANOS]));
}

function fieldMaskValue(rand: Rand, rules: FieldRules | undefined): Message {
  const paths = ['a', 'b', 'z', 'a.b', 'b.c', 'c.d', 'c', 'secret', 'x.y', 'x'];
  if (rules?.type.case === 'fieldMask') {
    const r = rules.type.value;
    paths.push(...(r.const?.paths ?? []), ...r.in, ...r.notIn);
  }
  return create(FieldMaskSchema, { paths: Array.from({ length: intIn(rand, 0, 3) }, () => pick(rand, paths)) });
}

const ANY_TYPES = ['type.googleapis.com/google.protobuf.Duration', 'type.googleapis.com/google.protobuf.Timestamp', 'type.googleapis.com/rules.v1.Leaf', 'type.googleapis.com/other.v1.Thing', 'example.com/x', ''];

function anyValue(rand: Rand, schema: DescMessage, rules: FieldRules | undefined): Message {
  const types = [...ANY_TYPES];
  if (rules?.type.case === 'any') types.push(...rules.type.value.in, ...rules.type.value.notIn);
  return create(schema, { typeUrl: pick(rand, types), value: new Uint8Array(0) } as never);
}

const WRAPPERS = new Set([
  'google.protobuf.DoubleValue',
  'google.protobuf.FloatValue',
  'google.protobuf.Int64Value',
  'google.protobuf.UInt64Value',
  'google.protobuf.Int32Value',
  'google.protobuf.UInt32Value',
  'google.protobuf.BoolValue',
  'google.protobuf.StringValue',
  'google.protobuf.BytesValue',
]);

// ---- messages --------------------------------------------------------------

/** A message of `schema` for a field with `rules` (its own rules apply to wrappers and well-known types). */
function messageValue(rand: Rand, schema: DescMessage, rules: FieldRules | undefined, depth: number, options: RuleValueOptions): Message | undefined {
  switch (schema.typeName) {
    case 'google.protobuf.Duration':
      return durationValue(rand, rules);
    case 'google.protobuf.Timestamp':
      return timestampValue(rand, rules, options);
    case 'google.protobuf.FieldMask':
      return fieldMaskValue(rand, rules);
    case 'google.protobuf.Any':
      return anyValue(rand, schema, rules);
  }
  if (WRAPPERS.has(schema.typeName)) {
    const inner = schema.fields[0];
    if (inner?.fieldKind !== 'scalar') throw new Error(`${schema.typeName} has no scalar value field`);
    return create(schema, { value: scalarValue(rand, inner.scalar, rules) } as never);
  }
  if (depth >= options.maxDepth) return undefined;
  return ruleMessage(rand, schema, options, depth + 1);
}

const asReflect = (schema: DescMessage, message: Message): ReflectMessage => reflect(schema, message);

/** How many entries a list or map gets: around its bounds, with zero and one always in play. */
function entryCount(rand: Rand, bounds: readonly bigint[]): number {
  const anchors = bounds.filter((n) => n > 0n).map(Number);
  if (anchors.length > 0 && chance(rand, 0.7)) return Math.max(0, pick(rand, anchors) + intIn(rand, -1, 1));
  return intIn(rand, 0, 3);
}

function setFieldValue(rand: Rand, field: DescField, r: ReflectMessage, depth: number, options: RuleValueOptions): void {
  const rules = fieldRules(field);
  switch (field.fieldKind) {
    case 'scalar':
      r.set(field, scalarValue(rand, field.scalar, rules));
      return;
    case 'enum':
      r.set(field, enumValue(rand, field.enum, rules, field.enum.open === false));
      return;
    case 'message': {
      const value = messageValue(rand, field.message, rules, depth, options);
      if (value !== undefined) r.set(field, asReflect(field.message, value));
      return;
    }
    case 'list': {
      const repeated = rules.type.case === 'repeated' ? rules.type.value : undefined;
      const itemRules = repeated?.items;
      const list = r.get(field);
      const items: unknown[] = [];
      const n = entryCount(rand, [repeated?.minItems ?? 0n, repeated?.maxItems ?? 0n]);
      for (let i = 0; i < n; i++) {
        // Repeat an earlier item now and then, for `unique`.
        if (items.length > 0 && chance(rand, 0.25)) {
          items.push(pick(rand, items));
          continue;
        }
        if (field.listKind === 'scalar') items.push(scalarValue(rand, field.scalar, itemRules));
        else if (field.listKind === 'enum') items.push(enumValue(rand, field.enum, itemRules, field.enum.open === false));
        else {
          const value = messageValue(rand, field.message, itemRules, depth, options);
          if (value !== undefined) items.push(asReflect(field.message, value));
        }
      }
      for (const item of items) list.add(item);
      return;
    }
    case 'map': {
      const mapRules = rules.type.case === 'map' ? rules.type.value : undefined;
      const map = r.get(field);
      const n = entryCount(rand, [mapRules?.minPairs ?? 0n, mapRules?.maxPairs ?? 0n]);
      for (let i = 0; i < n; i++) {
        const key = scalarValue(rand, field.mapKey, mapRules?.keys);
        if (field.mapKind === 'scalar') map.set(key, scalarValue(rand, field.scalar, mapRules?.values));
        else if (field.mapKind === 'enum') map.set(key, enumValue(rand, field.enum, mapRules?.values, field.enum.open === false));
        else {
          const value = messageValue(rand, field.message, mapRules?.values, depth, options);
          if (value !== undefined) map.set(key, asReflect(field.message, value));
        }
      }
      return;
    }
  }
}

/**
 * A random message of `schema` probing its fields' rules. Each field is left
 * unset about a quarter of the time (zero, for implicit presence); of a
 * oneof, none or one member is set.
 */
export function ruleMessage(rand: Rand, schema: DescMessage, options: RuleValueOptions, depth = 0): Message {
  const message = create(schema);
  const r = reflect(schema, message);
  for (const member of schema.members) {
    if (member.kind === 'oneof') {
      if (chance(rand, 0.75)) setFieldValue(rand, pick(rand, member.fields), r, depth, options);
      continue;
    }
    if (chance(rand, 0.72)) setFieldValue(rand, member, r, depth, options);
  }
  if (!isMessage(message, schema)) throw new Error(`not a ${schema.typeName}`);
  return message;
}

/**
 * Draws the named top-level fields (or oneofs) of `message` again, each left
 * unset a quarter of the time: a caller that redraws the fields a validator
 * complained about gets messages with few or no violations, where a
 * validator's path for valid input is exercised too.
 */
export function redrawFields(rand: Rand, schema: DescMessage, message: Message, names: Iterable<string>, options: RuleValueOptions): void {
  const r = reflect(schema, message);
  for (const name of names) {
    const oneof = schema.oneofs.find((o) => o.name === name);
    if (oneof !== undefined) {
      for (const f of oneof.fields) r.clear(f);
      if (chance(rand, 0.75)) setFieldValue(rand, pick(rand, oneof.fields), r, 0, options);
      continue;
    }
    const field = schema.fields.find((f) => f.name === name);
    if (field === undefined) continue;
    r.clear(field);
    if (chance(rand, 0.72)) setFieldValue(rand, field, r, 0, options);
  }
}
