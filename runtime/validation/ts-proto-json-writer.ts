/**
 * Canonical proto3 JSON written straight from ts-proto's objects, for the
 * messages whose JSON ts-proto's own `toJSON` gets wrong (64-bit integers,
 * floats, bytes, enums, well-known types): one writer per message type,
 * compiled once from its descriptor, that gives what
 * `toJson(schema, fromBinary(schema, codec.encode(value)))` gives without
 * the trip through binary. The JSON of the well-known types stays
 * protobuf-es's own: its `toJson` is called on the Timestamp, Duration,
 * FieldMask or Any rebuilt from ts-proto's shape. Scalars follow its rules:
 * 64-bit integers as decimal strings, floats rounded to 32 bits, NaN and
 * Infinity as strings, bytes as standard base64, enums by name (unknown
 * numbers as numbers), strings as UTF-8 would carry them.
 *
 * A writer maps only values of the shape ts-proto gives them; anything else
 * (a wrong type, a number out of range, an object that is not plain) makes
 * it throw, and the caller takes protobuf-es's path, which decides. Fields
 * left `undefined` are unset, as for ts-proto's `toJSON` and `fromPartial`.
 */
import { ScalarType, toJson, type DescEnum, type DescField, type DescMessage, type DescOneof, type JsonObject, type JsonValue, type Registry } from '@bufbuild/protobuf';
import { AnySchema, DurationSchema, FieldMaskSchema, TimestampSchema } from '@bufbuild/protobuf/wkt';
import { base64Encode } from '@bufbuild/protobuf/wire';
import { EDITION_PROTO3, IMPLICIT, mapIsJsMap, ownSites, refuse, tsProtoPropertyName, WRAPPERS, wellFormed, type Fields } from './ts-proto-shapes';

/** Writes one message value; throws for a value it does not map. */
export type TsProtoJsonWriter = (value: unknown) => JsonValue;

type WriteValue = (value: unknown) => JsonValue;
type WriteField = (message: Fields, json: JsonObject) => void;

// ---------------------------------------------------------------------------
// Scalars and enums
// ---------------------------------------------------------------------------

const writeInt32: WriteValue = (v) => (typeof v === 'number' && (v | 0) === v ? v | 0 : refuse());
const writeUint32: WriteValue = (v) => (typeof v === 'number' && v >>> 0 === v ? v >>> 0 : refuse());
const writeInt64: WriteValue = (v) => (typeof v === 'bigint' && BigInt.asIntN(64, v) === v ? v.toString() : refuse());
const writeUint64: WriteValue = (v) => (typeof v === 'bigint' && BigInt.asUintN(64, v) === v ? v.toString() : refuse());
const writeBool: WriteValue = (v) => (typeof v === 'boolean' ? v : refuse());
const writeString: WriteValue = (v) => (typeof v === 'string' ? wellFormed(v) : refuse());
const writeBytes: WriteValue = (v) => (v instanceof Uint8Array ? base64Encode(v) : refuse());

function floatJson(v: number): JsonValue {
  if (Number.isFinite(v)) return v;
  if (Number.isNaN(v)) return 'NaN';
  return v > 0 ? 'Infinity' : '-Infinity';
}

const writeDouble: WriteValue = (v) => (typeof v === 'number' ? floatJson(v) : refuse());

/** A finite double too large for 32 bits does not encode; NaN and ±Infinity do. */
const writeFloat: WriteValue = (v) => {
  if (typeof v !== 'number') refuse();
  const rounded = Math.fround(v);
  if (!Number.isFinite(rounded) && Number.isFinite(v)) refuse();
  return floatJson(rounded);
};

function scalarWriter(scalar: ScalarType): WriteValue {
  switch (scalar) {
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return writeInt32;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return writeUint32;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return writeInt64;
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return writeUint64;
    case ScalarType.FLOAT:
      return writeFloat;
    case ScalarType.DOUBLE:
      return writeDouble;
    case ScalarType.BOOL:
      return writeBool;
    case ScalarType.STRING:
      return writeString;
    case ScalarType.BYTES:
      return writeBytes;
  }
}

/** The JSON of a scalar's zero value, which an implicit-presence field never writes (a float's -0 is not zero). */
function zeroJson(scalar: ScalarType): JsonValue {
  switch (scalar) {
    case ScalarType.BOOL:
      return false;
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return '';
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return '0';
    default:
      return 0;
  }
}

function enumWriter(desc: DescEnum): WriteValue {
  if (desc.typeName === 'google.protobuf.NullValue') return (v) => (typeof v === 'number' && (v | 0) === v ? null : refuse());
  return (v) => (typeof v === 'number' && (v | 0) === v ? (desc.value[v | 0]?.jsonName ?? (v | 0)) : refuse());
}

// ---------------------------------------------------------------------------
// Well-known types in ts-proto's shapes
// ---------------------------------------------------------------------------

function fieldsOf(v: unknown): Fields {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : refuse();
}

/** `{seconds: bigint, nanos: number}`, as ts-proto's Timestamp and Duration are. */
function secondsAndNanos(v: unknown): { seconds: bigint; nanos: number } {
  const t = fieldsOf(v);
  const seconds = t['seconds'] === undefined ? 0n : t['seconds'];
  const nanos = t['nanos'] === undefined ? 0 : writeInt32(t['nanos']);
  if (typeof seconds !== 'bigint' || BigInt.asIntN(64, seconds) !== seconds || typeof nanos !== 'number') refuse();
  return { seconds, nanos };
}

const writeTimestamp: WriteValue = (v) => toJson(TimestampSchema, { $typeName: 'google.protobuf.Timestamp', ...secondsAndNanos(v) });
const writeDuration: WriteValue = (v) => toJson(DurationSchema, { $typeName: 'google.protobuf.Duration', ...secondsAndNanos(v) });

/** ts-proto's FieldMask is its list of paths. */
const writeFieldMask: WriteValue = (v) => {
  if (!Array.isArray(v)) refuse();
  const paths: string[] = [];
  for (const path of v) paths.push(writeString(path) as string);
  return toJson(FieldMaskSchema, { $typeName: 'google.protobuf.FieldMask', paths });
};

function anyWriter(registry: Registry): WriteValue {
  return (v) => {
    const any = fieldsOf(v);
    const typeUrl = any['typeUrl'] === undefined ? '' : (writeString(any['typeUrl']) as string);
    const value = any['value'] === undefined ? new Uint8Array(0) : any['value'];
    if (!(value instanceof Uint8Array)) refuse();
    return toJson(AnySchema, { $typeName: 'google.protobuf.Any', typeUrl, value }, { registry });
  };
}

function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** ts-proto's Value is the JSON value itself; only plain JSON values are mapped (no undefined, NaN, Date, Map, class instances). */
const writeJsonValue: WriteValue = (v) => {
  switch (typeof v) {
    case 'string':
      return wellFormed(v);
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : refuse();
    case 'object':
      if (v === null) return null;
      return Array.isArray(v) ? writeListValue(v) : writeStruct(v);
    default:
      return refuse();
  }
};

/** ts-proto's Struct is a plain object of JSON values. */
const writeStruct: WriteValue = (v) => {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || !isPlainObject(v)) refuse();
  const json: JsonObject = {};
  for (const key of Object.keys(v)) {
    if (key === '__proto__') refuse();
    json[wellFormed(key)] = writeJsonValue((v as Fields)[key]);
  }
  return json;
};

/** ts-proto's ListValue is an array of JSON values. */
const writeListValue: WriteValue = (v) => {
  if (!Array.isArray(v)) refuse();
  const json: JsonValue[] = [];
  for (let i = 0; i < v.length; i++) json.push(writeJsonValue(v[i]));
  return json;
};

// ---------------------------------------------------------------------------
// Messages and fields
// ---------------------------------------------------------------------------

/** Compilation state of one top-level writer: message types already compiled (null: not mappable). */
interface Compilation {
  readonly registry: Registry;
  readonly messages: Map<DescMessage, { write: WriteValue; done: boolean } | null>;
}

/** The writer of a message field's value, or undefined when the type is not mapped. */
function messageValueWriter(c: Compilation, desc: DescMessage): WriteValue | undefined {
  if (desc.typeName.startsWith('google.protobuf.')) {
    switch (desc.typeName) {
      case 'google.protobuf.Timestamp':
        return writeTimestamp;
      case 'google.protobuf.Duration':
        return writeDuration;
      case 'google.protobuf.FieldMask':
        return writeFieldMask;
      case 'google.protobuf.Any':
        return anyWriter(c.registry);
      case 'google.protobuf.Struct':
        return writeStruct;
      case 'google.protobuf.Value':
        return writeJsonValue;
      case 'google.protobuf.ListValue':
        return writeListValue;
      case 'google.protobuf.Empty':
        break;
      default: {
        // ts-proto unwraps wrappers to their scalar; the wrapper's JSON is its value's.
        const value = desc.fields[0];
        if (WRAPPERS.has(desc.typeName) && value !== undefined && value.fieldKind === 'scalar') return scalarWriter(value.scalar);
        return undefined;
      }
    }
  }
  return messageWriter(c, desc);
}

function messageWriter(c: Compilation, desc: DescMessage): WriteValue | undefined {
  const known = c.messages.get(desc);
  if (known === null) return undefined;
  // Being compiled (a recursive type): go through the slot, filled in below.
  if (known !== undefined) return known.done ? known.write : (v) => known.write(v);
  if (desc.file.edition !== EDITION_PROTO3) return undefined;
  const slot = { write: refuse as WriteValue, done: false };
  c.messages.set(desc, slot);
  const fields: WriteField[] = [];
  for (const oneof of desc.oneofs) fields.push(oneofCheck(oneof));
  // protobuf-es writes members in field-number order.
  for (const field of [...desc.fields].sort((a, b) => a.number - b.number)) {
    const write = fieldWriter(c, field);
    if (write === undefined) {
      c.messages.set(desc, null);
      return undefined;
    }
    fields.push(write);
  }
  slot.write = (v) => {
    const message = fieldsOf(v);
    const json: JsonObject = {};
    for (let i = 0; i < fields.length; i++) (fields[i] as WriteField)(message, json);
    return json;
  };
  slot.done = true;
  return slot.write;
}

/** A oneof is `{$case, [member]: value}` or undefined; a `$case` that names no member is not mapped. */
function oneofCheck(oneof: DescOneof): WriteField {
  const property = tsProtoPropertyName(oneof.name);
  const cases = new Set(oneof.fields.map((f) => tsProtoPropertyName(f.name)));
  return (message) => {
    const value = message[property];
    if (value !== undefined && !cases.has(fieldsOf(value)['$case'] as string)) refuse();
  };
}

/** The writer of one value of `field` (an item of a list, the value of a map entry). */
function valueWriter(c: Compilation, field: DescField): WriteValue | undefined {
  switch (field.fieldKind) {
    case 'scalar':
      return field.longAsString ? undefined : scalarWriter(field.scalar);
    case 'enum':
      return enumWriter(field.enum);
    case 'message':
      return messageValueWriter(c, field.message);
    case 'list':
      if (field.listKind === 'scalar') return field.longAsString ? undefined : scalarWriter(field.scalar);
      return field.listKind === 'enum' ? enumWriter(field.enum) : messageValueWriter(c, field.message);
    case 'map':
      if (field.mapKind === 'scalar') return scalarWriter(field.scalar);
      return field.mapKind === 'enum' ? enumWriter(field.enum) : messageValueWriter(c, field.message);
  }
}

function fieldWriter(c: Compilation, field: DescField): WriteField | undefined {
  if (field.name === '__proto__' || field.jsonName === '__proto__') return undefined;
  const write = valueWriter(c, field);
  if (write === undefined) return undefined;
  const key = field.jsonName;
  const property = tsProtoPropertyName(field.name);
  if (field.oneof !== undefined) {
    const oneof = tsProtoPropertyName(field.oneof.name);
    return (message, json) => {
      const value = message[oneof] as Fields | undefined;
      if (value !== undefined && value['$case'] === property) json[key] = write(value[property]);
    };
  }
  switch (field.fieldKind) {
    case 'list':
      return listWriter(property, key, write);
    case 'map':
      return mapWriter(field, property, key, write);
    case 'message':
      return singularWriter(property, key, write, undefined);
    case 'enum':
      return singularWriter(property, key, write, field.presence === IMPLICIT ? (_w, value) => value === 0 : undefined);
    case 'scalar': {
      // Implicit presence: the zero value is not written. Compared after conversion, so a
      // float that rounds to 0 is dropped as binary drops it, and -0 stays.
      const zero = zeroJson(field.scalar);
      const isZero = zero === 0 ? (w: JsonValue) => Object.is(w, 0) : (w: JsonValue) => w === zero;
      return singularWriter(property, key, write, field.presence === IMPLICIT ? isZero : undefined);
    }
  }
}

/**
 * A singular scalar or enum: written when set, unless `isZero` (implicit
 * presence) says it holds the zero value; proto3 `optional` fields are
 * written whenever set, zero included.
 */
function singularWriter(property: string, key: string, write: WriteValue, isZero: ((w: JsonValue, value: unknown) => boolean) | undefined): WriteField {
  const read = JSON.stringify(property);
  const put = JSON.stringify(key);
  const body =
    isZero === undefined
      ? `const value = message[${read}]; if (value !== undefined) json[${put}] = write(value);`
      : `const value = message[${read}]; if (value === undefined) return; const w = write(value); if (!isZero(w, value)) json[${put}] = w;`;
  return ownSites<WriteField>(['write', 'isZero'], `return function (message, json) { ${body} };`, write, isZero);
}


function listWriter(property: string, key: string, write: WriteValue): WriteField {
  const body = `const value = message[${JSON.stringify(property)}]; if (value === undefined) return;
    if (!Array.isArray(value)) refuse(); if (value.length === 0) return;
    const items = []; for (let i = 0; i < value.length; i++) items.push(write(value[i]));
    json[${JSON.stringify(key)}] = items;`;
  return ownSites<WriteField>(['write', 'refuse'], `return function (message, json) { ${body} };`, write, refuse);
}

/** JSON keys of map keys: from a `Map`'s bigint or boolean keys, or a plain object's string keys. */
function mapKeyWriter(scalar: ScalarType): (key: unknown) => string {
  switch (scalar) {
    case ScalarType.STRING:
      return (k) => (typeof k === 'string' && k !== '__proto__' ? wellFormed(k) : refuse());
    case ScalarType.BOOL:
      return (k) => (typeof k === 'boolean' ? String(k) : refuse());
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return (k) => writeInt64(k) as string;
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return (k) => writeUint64(k) as string;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      // Only the canonical decimal spelling: "01" or "1e3" would be rewritten on the way through binary.
      return (k) => (typeof k === 'string' && String(writeUint32(Number(k))) === k ? k : refuse());
    default:
      return (k) => (typeof k === 'string' && String(writeInt32(Number(k))) === k ? k : refuse());
  }
}

function mapWriter(field: DescField & { fieldKind: 'map' }, property: string, key: string, write: WriteValue): WriteField {
  const writeKey = mapKeyWriter(field.mapKey);
  if (mapIsJsMap(field.mapKey)) {
    return (message, json) => {
      const value = message[property];
      if (value === undefined) return;
      if (!(value instanceof Map)) refuse();
      if (value.size === 0) return;
      const entries: JsonObject = {};
      for (const [k, v] of value as Map<unknown, unknown>) entries[writeKey(k)] = write(v);
      json[key] = entries;
    };
  }
  return (message, json) => {
    const value = message[property];
    if (value === undefined) return;
    if (value === null || typeof value !== 'object' || value instanceof Map || Array.isArray(value)) refuse();
    const keys = Object.keys(value);
    if (keys.length === 0) return;
    const entries: JsonObject = {};
    for (const k of keys) entries[writeKey(k)] = write((value as Fields)[k]);
    json[key] = entries;
  };
}

// ---------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------

/**
 * The compiled writer of `desc`'s ts-proto objects, or undefined when the
 * message (or one it contains) is not proto3, is itself a well-known type, or
 * holds a field kind the writer does not map (`jstype = JS_STRING`). `Any`
 * values are resolved in `registry`.
 */
export function compileTsProtoJsonWriter(desc: DescMessage, registry: Registry): TsProtoJsonWriter | undefined {
  if (desc.typeName.startsWith('google.protobuf.') && desc.typeName !== 'google.protobuf.Empty') return undefined;
  return messageWriter({ registry, messages: new Map() }, desc);
}
