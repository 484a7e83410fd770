/**
 * Canonical proto3 JSON written straight from ts-proto's objects, for the
 * messages whose JSON ts-proto's own `toJSON` gets wrong (64-bit integers,
 * floats, bytes, enums, well-known types): one function per message type,
 * generated once from its descriptor as fw's binary codecs are, that gives
 * what `toJson(schema, fromBinary(schema, codec.encode(value)))` gives
 * without the trip through binary. Scalars follow protobuf-es's rules:
 * 64-bit integers as decimal strings, floats rounded to 32 bits, NaN and
 * Infinity as strings, bytes as standard base64, enums by name (unknown
 * numbers as numbers), strings as UTF-8 would carry them; Timestamp and
 * Duration in its spelling (nanoseconds in 3, 6 or 9 digits); Any and
 * FieldMask through its own `toJson`.
 *
 * A writer maps only values of the shape ts-proto gives them; anything else
 * (a wrong type, a number out of range, a Timestamp protobuf-es does not
 * write, an object that is not plain) makes it throw, and the caller takes
 * protobuf-es's path, which decides. Fields left `undefined` are unset, as
 * for ts-proto's `toJSON` and `fromPartial`.
 */
import { ScalarType, toJson, type DescEnum, type DescField, type DescMessage, type JsonObject, type JsonValue, type Registry } from '@bufbuild/protobuf';
import { AnySchema, FieldMaskSchema } from '@bufbuild/protobuf/wkt';
import { base64Encode } from '@bufbuild/protobuf/wire';
import { fieldValue, GeneratedFunctions, sameValueScalarCode, scalarGroup, literal, messageMapping, type FieldValue, type GeneratedSource, type WellKnownJson } from './generated-source';
import { DURATION_SECONDS_MAX, IMPLICIT, is64Bit, mapIsJsMap, refuse, tsProtoPropertyName, wellFormed, type Fields } from './ts-proto-shapes';

/** Writes one message value; throws for a value it does not map. */
export type TsProtoJsonWriter = (value: unknown) => JsonValue;

type WriteValue = (value: unknown) => JsonValue;

// ---------------------------------------------------------------------------
// Scalars and enums
// ---------------------------------------------------------------------------

const writeInt32: WriteValue = (v) => (typeof v === 'number' && (v | 0) === v ? v | 0 : refuse());
const writeUint32: WriteValue = (v) => (typeof v === 'number' && v >>> 0 === v ? v >>> 0 : refuse());
const writeInt64: WriteValue = (v) => (typeof v === 'bigint' && BigInt.asIntN(64, v) === v ? v.toString() : refuse());
const writeUint64: WriteValue = (v) => (typeof v === 'bigint' && BigInt.asUintN(64, v) === v ? v.toString() : refuse());
const writeString: WriteValue = (v) => (typeof v === 'string' ? wellFormed(v) : refuse());

function floatJson(v: number): JsonValue {
  if (Number.isFinite(v)) return v;
  if (Number.isNaN(v)) return 'NaN';
  return v > 0 ? 'Infinity' : '-Infinity';
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

/** Timestamps protobuf-es writes: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z. */
const TIMESTAMP_MS_MIN = -62_135_596_800_000;
const TIMESTAMP_MS_MAX = 253_402_300_799_000;

/** 3, 6 or 9 digits of nanoseconds, as few as say them exactly. */
function nanosText(nanos: number): string {
  const text = (nanos + 1_000_000_000).toString().substring(1);
  if (text.endsWith('000000')) return text.substring(0, 3);
  return text.endsWith('000') ? text.substring(0, 6) : text;
}

/**
 * RFC 3339 in UTC with the nanoseconds, as protobuf-es writes a Timestamp;
 * a value outside its range is refused (protobuf-es's path then says why).
 */
const writeTimestamp: WriteValue = (v) => {
  const { seconds, nanos } = secondsAndNanos(v);
  const ms = Number(seconds) * 1000;
  if (!(ms >= TIMESTAMP_MS_MIN && ms <= TIMESTAMP_MS_MAX) || nanos < 0 || nanos > 999_999_999) refuse();
  const date = new Date(ms).toISOString().substring(0, 19);
  return nanos === 0 ? `${date}Z` : `${date}.${nanosText(nanos)}Z`;
};

const DURATION_SECONDS_LIMIT = BigInt(DURATION_SECONDS_MAX);

/** `[-]S[.fff…]s`, as protobuf-es writes a Duration; out of range or mixed signs refused. */
const writeDuration: WriteValue = (v) => {
  const { seconds, nanos } = secondsAndNanos(v);
  if (seconds > DURATION_SECONDS_LIMIT || seconds < -DURATION_SECONDS_LIMIT || (seconds > 0n && nanos < 0) || (seconds < 0n && nanos > 0)) refuse();
  if (nanos === 0) return `${seconds}s`;
  if (nanos < -999_999_999 || nanos > 999_999_999) refuse();
  const sign = nanos < 0 && seconds === 0n ? '-' : '';
  return `${sign}${seconds}.${nanosText(Math.abs(nanos))}s`;
};

// ---------------------------------------------------------------------------
// Messages and fields: one generated function per message type
// ---------------------------------------------------------------------------

interface Compilation {
  readonly registry: Registry;
  readonly functions: GeneratedFunctions;
  readonly source: GeneratedSource;
}

const refuseValue = refuse;

/** Statements that write the ts-proto value in `from` as JSON into `to` (a declared variable), or refuse. */
function scalarCode(c: Compilation, scalar: ScalarType, from: string, to: string): string {
  const refuse = c.source.value(refuseValue);
  const group = scalarGroup(scalar);
  switch (group) {
    case 'int64':
      return `if (typeof ${from} !== "bigint" || ${from} < -9223372036854775808n || ${from} > 9223372036854775807n) ${refuse}(); ${to} = ${from}.toString();`;
    case 'uint64':
      return `if (typeof ${from} !== "bigint" || ${from} < 0n || ${from} > 18446744073709551615n) ${refuse}(); ${to} = ${from}.toString();`;
    case 'float':
      // A finite double too large for 32 bits does not encode; NaN and ±Infinity do.
      return `if (typeof ${from} !== "number") ${refuse}(); ${to} = Math.fround(${from});
        if (${to} - ${to} !== 0) { if (${from} - ${from} === 0) ${refuse}(); ${to} = ${c.source.value(floatJson)}(${to}); }`;
    case 'double':
      return `if (typeof ${from} !== "number") ${refuse}(); ${to} = ${from} - ${from} === 0 ? ${from} : ${c.source.value(floatJson)}(${from});`;
    case 'string':
      return `if (typeof ${from} !== "string") ${refuse}(); ${to} = ${c.source.value(wellFormed)}(${from});`;
    case 'bytes':
      return `if (!(${from} instanceof Uint8Array)) ${refuse}(); ${to} = ${c.source.value(base64Encode)}(${from});`;
    default:
      return sameValueScalarCode(group, from, to, refuse) as string;
  }
}

/**
 * The condition under which an implicit-presence scalar is written: it is
 * not its zero value. Tested after conversion where conversion can make a
 * zero (a float that rounds to 0 is dropped, as binary drops it; -0 stays).
 */
function nonZeroCode(scalar: ScalarType, from: string, to: string): string {
  switch (scalar) {
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      return `(${to} !== 0 || 1 / ${to} < 0)`;
    case ScalarType.BOOL:
      return from;
    case ScalarType.STRING:
      return `${to} !== ""`;
    case ScalarType.BYTES:
      return `${from}.length !== 0`;
    default:
      return is64Bit(scalar) ? `${from} !== 0n` : `${from} !== 0`;
  }
}

function enumCode(c: Compilation, desc: DescEnum, from: string, to: string): string {
  const refuse = c.source.value(refuseValue);
  const check = `if (typeof ${from} !== "number" || (${from} | 0) !== ${from}) ${refuse}();`;
  if (desc.typeName === 'google.protobuf.NullValue') return `${check} ${to} = null;`;
  const names = new Map<number, string>();
  for (const value of desc.values) if (!names.has(value.number)) names.set(value.number, value.jsonName);
  // Unknown numbers (open enums) are written as numbers.
  return `${check} ${to} = ${c.source.value(names)}.get(${from} | 0); if (${to} === undefined) ${to} = ${from} | 0;`;
}

/** The writer of each well-known type's JSON form. */
function wellKnownWriter(c: Compilation, name: WellKnownJson): WriteValue {
  switch (name) {
    case 'Timestamp':
      return writeTimestamp;
    case 'Duration':
      return writeDuration;
    case 'FieldMask':
      return writeFieldMask;
    case 'Any':
      return anyWriter(c.registry);
    case 'Struct':
      return writeStruct;
    case 'Value':
      return writeJsonValue;
    case 'ListValue':
      return writeListValue;
  }
}

/** Statements for one value of a field (the field itself, a list item, a map value); undefined: not mapped. */
function valueCode(c: Compilation, value: FieldValue | undefined, from: string, to: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.kind === 'scalar') return scalarCode(c, value.scalar, from, to);
  if (value.kind === 'enum') return enumCode(c, value.desc, from, to);
  const mapping = messageMapping(value.desc);
  if (mapping === undefined) return undefined;
  if (mapping === 'message') return `${to} = ${c.functions.nameOf(value.desc)}(${from});`;
  if (typeof mapping === 'object') return scalarCode(c, mapping.wrapper, from, to);
  return `${to} = ${c.source.value(wellKnownWriter(c, mapping))}(${from});`;
}

/** Statements that write field `field`'s value `from` (known to be set) into `json[key]`. */
function fieldCode(c: Compilation, field: DescField, from: string): string | undefined {
  const refuse = c.source.value(refuseValue);
  const key = literal(field.jsonName);
  const out = c.source.local('t');
  switch (field.fieldKind) {
    case 'list': {
      const item = valueCode(c, fieldValue(field), `${from}[i]`, out);
      if (item === undefined) return undefined;
      return `if (!Array.isArray(${from})) ${refuse}();
        if (${from}.length !== 0) { const a = []; for (let i = 0; i < ${from}.length; i++) { let ${out}; ${item} a.push(${out}); } json[${key}] = a; }`;
    }
    case 'map': {
      const entry = valueCode(c, fieldValue(field), 'e', out);
      if (entry === undefined) return undefined;
      const writeKey = c.source.value(mapKeyWriter(field.mapKey));
      if (mapIsJsMap(field.mapKey)) {
        return `if (!(${from} instanceof Map)) ${refuse}();
          if (${from}.size !== 0) { const m = {}; for (const [mk, e] of ${from}) { let ${out}; ${entry} m[${writeKey}(mk)] = ${out}; } json[${key}] = m; }`;
      }
      return `if (${from} === null || typeof ${from} !== "object" || ${from} instanceof Map || Array.isArray(${from})) ${refuse}();
        const mks = Object.keys(${from});
        if (mks.length !== 0) { const m = {}; for (const mk of mks) { const e = ${from}[mk]; let ${out}; ${entry} m[${writeKey}(mk)] = ${out}; } json[${key}] = m; }`;
    }
    default: {
      const value = valueCode(c, fieldValue(field), from, out);
      if (value === undefined) return undefined;
      // Implicit presence: the zero value is not written; proto3 `optional` fields are written whenever set.
      const implicit = field.presence === IMPLICIT && field.oneof === undefined && field.fieldKind !== 'message';
      const write = `json[${key}] = ${out};`;
      if (!implicit) return `let ${out}; ${value} ${write}`;
      const nonZero = field.fieldKind === 'enum' ? `${from} !== 0` : nonZeroCode(field.scalar, from, out);
      return `let ${out}; ${value} if (${nonZero}) ${write}`;
    }
  }
}

/**
 * One message type's function: oneofs checked first (a `$case` that names
 * no member is not mapped), then every field in field-number order, the
 * order protobuf-es writes members in.
 */
function messageFunction(c: Compilation, desc: DescMessage, name: string): string | undefined {
  const refuse = c.source.value(refuseValue);
  const statements: string[] = [];
  const oneofs = new Map<string, string>();
  for (const oneof of desc.oneofs) {
    const local = c.source.local('o');
    oneofs.set(oneof.name, local);
    const cases = oneof.fields.map((f) => `c !== ${literal(tsProtoPropertyName(f.name))}`).join(' && ');
    statements.push(`const ${local} = v[${literal(tsProtoPropertyName(oneof.name))}];
      if (${local} !== undefined) { if (${local} === null || typeof ${local} !== "object" || Array.isArray(${local})) ${refuse}(); const c = ${local}.$case; if (${cases}) ${refuse}(); }`);
  }
  for (const field of [...desc.fields].sort((a, b) => a.number - b.number)) {
    if (field.name === '__proto__' || field.jsonName === '__proto__') return undefined;
    const x = c.source.local('x');
    const property = literal(tsProtoPropertyName(field.name));
    const code = fieldCode(c, field, x);
    if (code === undefined) return undefined;
    if (field.oneof !== undefined) {
      const oneof = oneofs.get(field.oneof.name) as string;
      statements.push(`if (${oneof} !== undefined && ${oneof}.$case === ${property}) { const ${x} = ${oneof}[${property}]; ${code} }`);
    } else {
      statements.push(`{ const ${x} = v[${property}]; if (${x} !== undefined) { ${code} } }`);
    }
  }
  return `function ${name}(v) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) ${refuse}();
    const json = {};
    ${statements.join('\n    ')}
    return json;
  }`;
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
  if (messageMapping(desc) !== 'message') return undefined;
  const functions = new GeneratedFunctions('w');
  const c: Compilation = { registry, functions, source: functions.source };
  return functions.compile<TsProtoJsonWriter>(desc, (type, name) => messageFunction(c, type, name));
}
