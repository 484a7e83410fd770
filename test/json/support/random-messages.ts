/**
 * Seeded random messages of any schema, built with @bufbuild/protobuf's
 * reflection API: every field kind (scalars, enums with unknown numbers,
 * lists, maps, oneofs, nested and recursive messages) and every well-known
 * type, with a bias towards the values that break JSON mappings: 64-bit
 * limits, NaN, ±Infinity, -0, empty and very large strings, deep nesting.
 */
import { create, ScalarType, type DescField, type DescMessage, type JsonValue, type Message, type Registry } from '@bufbuild/protobuf';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import {
  anyPack,
  DurationSchema,
  FieldMaskSchema,
  Int32ValueSchema,
  StringValueSchema,
  StructSchema,
  TimestampSchema,
  ValueSchema,
} from '@bufbuild/protobuf/wkt';

type Rand = () => number;

export interface RandomOptions {
  /** Nesting of message fields at most this deep (the JSON depth limit is 100). */
  readonly maxDepth: number;
  /** Chance that a field is set. */
  readonly fill: number;
  /** Chance that a string is very large (64 KiB and more). */
  readonly hugeStrings: number;
  /** Registry the schema and the types an `Any` may hold come from. */
  readonly registry: Registry;
  /** Follow a recursive field down to `maxDepth`. */
  readonly deep?: boolean;
}

/** Options one level down: fewer fields set, so a message's size does not grow with its depth. */
const below = (options: RandomOptions): RandomOptions => ({ ...options, fill: options.fill * 0.4, hugeStrings: 0 });

const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const chance = (rand: Rand, p: number): boolean => rand() < p;
const intIn = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

function randomBigint(rand: Rand, lo: bigint, hi: bigint): bigint {
  const span = hi - lo + 1n;
  let value = 0n;
  for (let i = 0; i < 5; i++) value = (value << 16n) | BigInt(Math.floor(rand() * 65536));
  return lo + (value % span);
}

const STRING_PIECES = ['', 'a', 'hello', ' spaced ', 'ünïcödé', '日本語', '😀', 'line\nbreak', 'quote"back\\slash', '\u0000nul', '\u2028', 'tab\t', '</script>'];

function randomString(rand: Rand, options: RandomOptions): string {
  if (chance(rand, options.hugeStrings)) return 'x'.repeat(65_536 + intIn(rand, 0, 4096));
  if (chance(rand, 0.2)) return '';
  let out = '';
  const n = intIn(rand, 1, 4);
  for (let i = 0; i < n; i++) out += pick(rand, STRING_PIECES);
  return out;
}

function randomBytes(rand: Rand): Uint8Array {
  const out = new Uint8Array(chance(rand, 0.2) ? 0 : intIn(rand, 1, 40));
  for (let i = 0; i < out.length; i++) out[i] = intIn(rand, 0, 255);
  return out;
}

const DOUBLE_EXTREMES = [0, -0, NaN, Infinity, -Infinity, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 1e-300, 2 ** 53 + 2, 0.1, -1.5];
const FLOAT_EXTREMES = [0, -0, NaN, Infinity, -Infinity, 3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45, 0.5, -2.25];

/** A scalar of `type`: a limit, a special value or a random one. */
export function randomScalar(rand: Rand, type: ScalarType, options: RandomOptions): unknown {
  const extreme = chance(rand, 0.35);
  switch (type) {
    case ScalarType.DOUBLE:
      return extreme ? pick(rand, DOUBLE_EXTREMES) : (rand() - 0.5) * 10 ** intIn(rand, -10, 20);
    case ScalarType.FLOAT:
      return extreme ? pick(rand, FLOAT_EXTREMES) : Math.fround((rand() - 0.5) * 10 ** intIn(rand, -5, 10));
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return extreme ? pick(rand, [0, -1, 1, 2147483647, -2147483648]) : intIn(rand, -2147483648, 2147483647);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return extreme ? pick(rand, [0, 1, 4294967295]) : intIn(rand, 0, 4294967295);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return extreme ? pick(rand, [0n, -1n, INT64_MIN, INT64_MAX, 2n ** 53n + 1n, -(2n ** 53n) - 1n]) : randomBigint(rand, INT64_MIN, INT64_MAX);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return extreme ? pick(rand, [0n, 1n, UINT64_MAX, 2n ** 53n + 1n]) : randomBigint(rand, 0n, UINT64_MAX);
    case ScalarType.BOOL:
      return chance(rand, 0.5);
    case ScalarType.STRING:
      return randomString(rand, options);
    case ScalarType.BYTES:
      return randomBytes(rand);
  }
}

/** A map key of `type` (no floats, bytes or messages are keys). */
function randomKey(rand: Rand, type: ScalarType, options: RandomOptions): unknown {
  if (type === ScalarType.STRING) return chance(rand, 0.5) ? randomString(rand, { ...options, hugeStrings: 0 }) : `k${intIn(rand, 0, 99)}`;
  return randomScalar(rand, type, options);
}

function randomEnum(rand: Rand, field: DescField): number {
  // NullValue has one value, and JSON writes any number of it as null.
  if (field.enum?.typeName === 'google.protobuf.NullValue') return 0;
  const values = field.enum?.values ?? [];
  // Proto3 enums are open: a number no value names must survive too.
  if (chance(rand, 0.15)) return pick(rand, [99, -7, 2147483647]);
  return pick(rand, values).number;
}

const SNAKE_SEGMENTS = ['a', 'foo', 'foo_bar', 'x1', 'display_name', 'b_c_d'];

/** A JSON value a Struct can hold (no NaN or Infinity: `Value` has no JSON form for them). */
function randomJson(rand: Rand, depth: number): JsonValue {
  const kind = depth > 3 ? intIn(rand, 0, 3) : intIn(rand, 0, 5);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return chance(rand, 0.5);
    case 2:
      return pick(rand, [0, -1.5, 1e21, 123456789, 5e-324]);
    case 3:
      return pick(rand, STRING_PIECES);
    case 4:
      return Array.from({ length: intIn(rand, 0, 3) }, () => randomJson(rand, depth + 1));
    default: {
      const out: Record<string, JsonValue> = {};
      for (let i = intIn(rand, 0, 3); i > 0; i--) out[pick(rand, ['a', 'b', 'key', 'ü', ''])] = randomJson(rand, depth + 1);
      return out;
    }
  }
}

/** A well-known type's value, or undefined when `schema` is not one this file builds by hand. */
function randomWellKnown(rand: Rand, schema: DescMessage, depth: number, options: RandomOptions): Message | undefined {
  switch (schema.typeName) {
    case 'google.protobuf.Timestamp': {
      const seconds = chance(rand, 0.3) ? pick(rand, [-62135596800n, 253402300799n, 0n, -1n]) : randomBigint(rand, -62135596800n, 253402300799n);
      return create(TimestampSchema, { seconds, nanos: chance(rand, 0.3) ? pick(rand, [0, 999999999, 1000, 1000000]) : intIn(rand, 0, 999999999) });
    }
    case 'google.protobuf.Duration': {
      const seconds = chance(rand, 0.3) ? pick(rand, [-315576000000n, 315576000000n, 0n, 1n, -1n]) : randomBigint(rand, -315576000000n, 315576000000n);
      let nanos = chance(rand, 0.3) ? pick(rand, [0, 500000000, 999999999, 1000]) : intIn(rand, 0, 999999999);
      if (seconds < 0n || (seconds === 0n && chance(rand, 0.5))) nanos = -nanos;
      return create(DurationSchema, { seconds, nanos });
    }
    case 'google.protobuf.FieldMask':
      return create(FieldMaskSchema, { paths: Array.from({ length: intIn(rand, 0, 3) }, () => Array.from({ length: intIn(rand, 1, 2) }, () => pick(rand, SNAKE_SEGMENTS)).join('.')) });
    case 'google.protobuf.Struct': {
      const json = randomJson(rand, 4 - intIn(rand, 0, 2));
      const object = json !== null && typeof json === 'object' && !Array.isArray(json) ? json : { v: json };
      return create(StructSchema, fromStructJson(object));
    }
    case 'google.protobuf.Value':
      return create(ValueSchema, valueOf(randomJson(rand, 2)));
    case 'google.protobuf.ListValue':
      return undefined;
    case 'google.protobuf.Any': {
      const inner = pick(rand, [DurationSchema, TimestampSchema, StructSchema, Int32ValueSchema, StringValueSchema, FieldMaskSchema, ValueSchema, 'self'] as const);
      const innerSchema = inner === 'self' ? (options.registry.getMessage('protobuf_test_messages.proto3.TestAllTypesProto3') ?? DurationSchema) : inner;
      const message = randomMessage(rand, innerSchema, { ...options, fill: inner === 'self' ? 0.05 : options.fill }, depth + 1);
      return anyPack(innerSchema, message);
    }
    default:
      return undefined;
  }
}

type ValueInit = Parameters<typeof create<typeof ValueSchema>>[1];

function valueOf(json: JsonValue): NonNullable<ValueInit> {
  if (json === null) return { kind: { case: 'nullValue', value: 0 } };
  if (typeof json === 'boolean') return { kind: { case: 'boolValue', value: json } };
  if (typeof json === 'number') return { kind: { case: 'numberValue', value: json } };
  if (typeof json === 'string') return { kind: { case: 'stringValue', value: json } };
  if (Array.isArray(json)) return { kind: { case: 'listValue', value: { values: json.map(valueOf) } } };
  return { kind: { case: 'structValue', value: fromStructJson(json) } };
}

function fromStructJson(object: { [k: string]: JsonValue }): { fields: Record<string, NonNullable<ValueInit>> } {
  const fields: Record<string, NonNullable<ValueInit>> = {};
  for (const [k, v] of Object.entries(object)) fields[k] = valueOf(v);
  return { fields };
}

function randomFieldValue(rand: Rand, field: DescField, r: ReflectMessage, depth: number, options: RandomOptions): void {
  switch (field.fieldKind) {
    case 'scalar':
      r.set(field, randomScalar(rand, field.scalar, options));
      return;
    case 'enum':
      r.set(field, randomEnum(rand, field));
      return;
    case 'message':
      if (depth >= options.maxDepth) return;
      r.set(field, reflect(field.message, randomMessage(rand, field.message, below(options), depth + 1)));
      return;
    case 'list': {
      const list = r.get(field);
      const n = intIn(rand, 0, 4);
      for (let i = 0; i < n; i++) {
        if (field.listKind === 'scalar') list.add(randomScalar(rand, field.scalar, { ...options, hugeStrings: 0 }));
        else if (field.listKind === 'enum') list.add(randomEnum(rand, field));
        else if (depth < options.maxDepth) list.add(reflect(field.message, randomMessage(rand, field.message, below(options), depth + 1)));
      }
      return;
    }
    case 'map': {
      const map = r.get(field);
      const n = intIn(rand, 0, 3);
      for (let i = 0; i < n; i++) {
        const key = randomKey(rand, field.mapKey, options);
        if (field.mapKind === 'scalar') map.set(key, randomScalar(rand, field.scalar, { ...options, hugeStrings: 0 }));
        else if (field.mapKind === 'enum') map.set(key, randomEnum(rand, field));
        else if (depth < options.maxDepth) map.set(key, reflect(field.message, randomMessage(rand, field.message, below(options), depth + 1)));
      }
      return;
    }
  }
}

/** A random message of `schema`. */
export function randomMessage(rand: Rand, schema: DescMessage, options: RandomOptions, depth = 0): Message {
  const known = randomWellKnown(rand, schema, depth, options);
  if (known !== undefined) return known;
  const message = create(schema);
  const r = reflect(schema, message);
  for (const member of schema.members) {
    if (member.kind === 'oneof') {
      if (!chance(rand, options.fill * 2)) continue;
      randomFieldValue(rand, pick(rand, member.fields), r, depth, options);
      continue;
    }
    // A deep message follows its recursive field down to the limit.
    const recursive = member.fieldKind === 'message' && member.message.typeName === schema.typeName;
    if (recursive && options.deep === true && depth < options.maxDepth) {
      r.set(member, reflect(schema, randomMessage(rand, schema, { ...below(options), deep: true }, depth + 1)));
      continue;
    }
    if (chance(rand, options.fill)) randomFieldValue(rand, member, r, depth, { ...options, deep: false });
  }
  return message;
}
