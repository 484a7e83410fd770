/**
 * What fw-gen's ts-proto output looks like at run time, read from a
 * message's descriptor: the property each field and oneof gets, which
 * well-known types it unwraps, and how a codec is recognised as ts-proto's.
 * Shared by the compiled JSON writer (ts-proto-json-writer.ts) and the
 * builder of ts-proto objects from protobuf-es messages
 * (ts-proto-object-builder.ts).
 */
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';

/** A message object, read property by property. */
export type Fields = Record<string, unknown>;

/**
 * Thrown for a value of a shape ts-proto does not give it, and caught by
 * the gate, which then takes the trip through binary. One instance: no stack
 * is captured, the caller only needs to know it happened.
 */
const NOT_MAPPED = new Error('a value outside the shapes of ts-proto objects');

export function refuse(): never {
  throw NOT_MAPPED;
}

/** google.protobuf.Edition.EDITION_PROTO3: proto2 and editions (closed enums, presence, groups) keep the trip through binary. */
export const EDITION_PROTO3 = 999;

/** google.protobuf.FeatureSet.FieldPresence.IMPLICIT: proto3 scalars without `optional`. */
export const IMPLICIT = 2;

/** Wrapper types, which ts-proto unwraps to their scalar wherever they are used as a field. */
export const WRAPPERS: ReadonlySet<string> = new Set([
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

/**
 * The property ts-proto gives a field or oneof. fw-gen runs ts-proto with
 * its default `snakeToCamel=keys,json`: a name with an underscore becomes
 * camelCase (lower-cased first when it has no lower-case letter at all),
 * any other name stays as written.
 */
export function tsProtoPropertyName(protoName: string): string {
  if (!protoName.includes('_')) return protoName;
  const lower = /[a-z]/.test(protoName) ? protoName : protoName.toLowerCase();
  return lower
    .split('_')
    .map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join('');
}

interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** The string UTF-8 carries: each lone surrogate becomes U+FFFD, as the binary encoder writes it. */
export function wellFormed(text: string): string {
  // Short strings are scanned here: on Node 24 every isWellFormed call also bumps a V8 use counter, costlier than the scan.
  if (text.length <= 64) {
    let i = 0;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdfff) break;
    }
    if (i === text.length) return text;
  }
  const s = text as unknown as WellFormedString;
  return s.isWellFormed() ? text : s.toWellFormed();
}

/** Whole seconds of a Duration at most, either sign: 315,576,000,000 (10,000 years), as protobuf-es reads and writes them. */
export const DURATION_SECONDS_MAX = 315_576_000_000;

/** JSON nested deeper than this (messages, Struct and list levels) is left to protobuf-es, whose recursion limit (100) then decides. */
export const MAX_DEPTH = 32;

/** A JSON value as ts-proto's Struct, Value and ListValue hold it: the same value, strings as UTF-8 carries them. */
export function copyJsonValue(json: unknown, depth: number): unknown {
  switch (typeof json) {
    case 'string':
      return wellFormed(json);
    case 'number':
    case 'boolean':
      return json;
    case 'object': {
      if (json === null) return null;
      if (depth > MAX_DEPTH) refuse();
      if (Array.isArray(json)) {
        const list: unknown[] = [];
        for (let i = 0; i < json.length; i++) list.push(copyJsonValue(json[i], depth + 1));
        return list;
      }
      return copyStruct(json, depth);
    }
    default:
      return refuse();
  }
}

export function copyStruct(json: unknown, depth: number): Fields {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || depth > MAX_DEPTH) refuse();
  const out: Fields = {};
  for (const key of Object.keys(json)) {
    if (key === '__proto__') refuse();
    out[wellFormed(key)] = copyJsonValue((json as Fields)[key], depth + 1);
  }
  return out;
}

/** True for the 64-bit integer scalars (bigint in ts-proto, with forceLong=bigint). */
export function is64Bit(scalar: ScalarType): boolean {
  switch (scalar) {
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return true;
    default:
      return false;
  }
}

/** ts-proto keeps maps with 64-bit or bool keys in a `Map`, the others in a plain object. */
export function mapIsJsMap(mapKey: ScalarType): boolean {
  return mapKey === ScalarType.BOOL || is64Bit(mapKey);
}

/**
 * True when `base` (the codec's decoding of no bytes) is ts-proto's empty
 * message of `desc`: exactly the properties ts-proto names, holding its
 * defaults. A codec of another shape (proto-loader's, protobuf-es's own)
 * keeps the trip through binary.
 */
export function isTsProtoBase(desc: DescMessage, base: unknown): boolean {
  if (base === null || typeof base !== 'object') return false;
  const own = base as Fields;
  const expected = new Set<string>();
  for (const oneof of desc.oneofs) expected.add(tsProtoPropertyName(oneof.name));
  for (const field of desc.fields) if (field.oneof === undefined) expected.add(tsProtoPropertyName(field.name));
  const keys = Object.keys(own);
  if (keys.length !== expected.size || !keys.every((k) => expected.has(k))) return false;
  return desc.fields.every((field) => field.oneof !== undefined || defaultMatches(field, own[tsProtoPropertyName(field.name)]));
}

function defaultMatches(field: DescField, value: unknown): boolean {
  switch (field.fieldKind) {
    case 'list':
      return Array.isArray(value) && value.length === 0;
    case 'map':
      if (mapIsJsMap(field.mapKey)) return value instanceof Map && value.size === 0;
      return value !== null && typeof value === 'object' && !(value instanceof Map) && Object.keys(value).length === 0;
    case 'message':
      return value === undefined;
    case 'enum':
      return field.presence !== IMPLICIT ? value === undefined : value === 0;
    case 'scalar':
      if (field.presence !== IMPLICIT) return value === undefined;
      switch (field.scalar) {
        case ScalarType.BYTES:
          return value instanceof Uint8Array && value.length === 0;
        case ScalarType.STRING:
          return value === '';
        case ScalarType.BOOL:
          return value === false;
        default:
          return is64Bit(field.scalar) ? value === 0n : value === 0;
      }
  }
}

/**
 * A per-field function (a writer's or builder's) built from its own source
 * text: closures made from one function literal share their inline caches,
 * so one `message[property]` site would see every field of every type and
 * turn megamorphic; built this way each field's reads and writes stay
 * monomorphic. Callers quote the property names with JSON.stringify; nothing
 * else of the proto reaches the text.
 */
export function ownSites<T>(params: string[], source: string, ...args: unknown[]): T {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  return (new Function(...params, source) as (...a: unknown[]) => T)(...args);
}
