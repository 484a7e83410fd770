/**
 * ts-proto's object of a request, read straight from its parsed JSON: what
 * @bufbuild/protobuf's `fromJson` followed by the builder
 * (ts-proto-object-builder.ts) gives, in one pass and without protobuf-es's
 * message in between. One function per message type, generated once from
 * the descriptor, as fw's binary codecs are.
 *
 * The reader takes only the common spelling of each value — the canonical
 * JSON protobuf-es and every proto3 JSON writer emit, plus numbers for
 * 64-bit integers and enum numbers — and refuses everything else by
 * throwing: `null` members, numbers as strings, "NaN" and "Infinity",
 * non-canonical map keys, timestamps with offsets, `Any`, FieldMask, unknown
 * or doubled members, nesting past 32. The gate then takes protobuf-es's
 * path, which accepts what the proto3 JSON spec accepts and names the field
 * of what it refuses. So what the reader returns is what that path returns,
 * and anything it does not take costs one wasted partial read, not a
 * different answer.
 */
import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { base64Decode } from '@bufbuild/protobuf/wire';
import { GeneratedSource, literal } from './generated-source';
import { EDITION_PROTO3, IMPLICIT, is64Bit, mapIsJsMap, refuse, tsProtoPropertyName, WRAPPERS, wellFormed, type Fields } from './ts-proto-shapes';

/** Reads one message's parsed JSON into ts-proto's object; throws for what it does not take. */
export type TsProtoJsonReader = (json: unknown) => unknown;

/** Messages nested deeper than this are left to protobuf-es, whose recursion limit (100) then decides. */
const MAX_DEPTH = 32;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

// ---------------------------------------------------------------------------
// Values the generated code calls
// ---------------------------------------------------------------------------

/** A 64-bit integer from its decimal text, in canonical form only ("0", "-12", not "-0", "012", "1e3", " 1"). */
function int64Text(text: string, signed: boolean): bigint {
  const length = text.length;
  let i = text.charCodeAt(0) === 45 /* - */ && signed ? 1 : 0;
  if (length === i || length - i > 20) refuse();
  const first = text.charCodeAt(i);
  if (first === 48 /* 0 */ && length !== 1) refuse();
  for (; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) refuse();
  }
  const value = BigInt(text);
  if (signed ? value < INT64_MIN || value > INT64_MAX : value > UINT64_MAX) refuse();
  return value;
}

function readInt64(json: unknown): bigint {
  if (typeof json === 'string') return int64Text(json, true);
  return typeof json === 'number' && Number.isSafeInteger(json) ? BigInt(json) : refuse();
}

function readUint64(json: unknown): bigint {
  if (typeof json === 'string') return int64Text(json, false);
  return typeof json === 'number' && Number.isSafeInteger(json) && json >= 0 ? BigInt(json) : refuse();
}

/** Digits at `at`..`at + count` as a number; refuses anything else. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) refuse();
    value = value * 10 + c;
  }
  return value;
}

/** Nanoseconds from 1–9 fraction digits at `at`, up to `end`. */
function fraction(text: string, at: number, end: number): number {
  const count = end - at;
  if (count < 1 || count > 9) refuse();
  return digits(text, at, count) * 10 ** (9 - count);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DDTHH:MM:SS[.fffffffff]Z` with every part in its calendar range, years 0100–9999. */
function readTimestamp(json: unknown): Fields {
  if (typeof json !== 'string' || json.length < 20 || json.length > 30) refuse();
  const t = json;
  if (t.charCodeAt(4) !== 45 || t.charCodeAt(7) !== 45 || t.charCodeAt(10) !== 84 || t.charCodeAt(13) !== 58 || t.charCodeAt(16) !== 58) refuse();
  if (t.charCodeAt(t.length - 1) !== 90 /* Z */) refuse();
  const year = digits(t, 0, 4);
  const month = digits(t, 5, 2);
  const day = digits(t, 8, 2);
  const hour = digits(t, 11, 2);
  const minute = digits(t, 14, 2);
  const second = digits(t, 17, 2);
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 1 : 0;
  if (year < 100 || month < 1 || month > 12 || day < 1 || day > (DAYS_IN_MONTH[month - 1] as number) + leap || hour > 23 || minute > 59 || second > 59) refuse();
  let nanos = 0;
  if (t.length !== 20) {
    if (t.charCodeAt(19) !== 46 /* . */) refuse();
    nanos = fraction(t, 20, t.length - 1);
  }
  return { seconds: BigInt(Date.UTC(year, month - 1, day, hour, minute, second) / 1000), nanos };
}

/** Whole seconds of a Duration at most: ±315,576,000,000 (10,000 years). */
const DURATION_SECONDS_MAX = 315_576_000_000;

/** `[-]S[.fffffffff]s`, S without leading zeros. */
function readDuration(json: unknown): Fields {
  if (typeof json !== 'string' || json.length < 2 || json.length > 23 || json.charCodeAt(json.length - 1) !== 115 /* s */) refuse();
  const end = json.length - 1;
  const negative = json.charCodeAt(0) === 45;
  let i = negative ? 1 : 0;
  const start = i;
  while (i < end && json.charCodeAt(i) !== 46) i++;
  const count = i - start;
  if (count < 1 || count > 12 || (count > 1 && json.charCodeAt(start) === 48)) refuse();
  const whole = digits(json, start, count);
  if (whole > DURATION_SECONDS_MAX) refuse();
  const nanos = i === end ? 0 : fraction(json, i + 1, end);
  // protobuf-es: "-0.5s" is 0 seconds and -500,000,000 nanos.
  return { seconds: BigInt(negative ? -whole : whole), nanos: negative && nanos !== 0 ? -nanos : nanos };
}

/** A JSON value as ts-proto's Struct, Value and ListValue hold it: the same value, strings as UTF-8 carries them. */
function readJsonValue(json: unknown, depth: number): unknown {
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
        for (let i = 0; i < json.length; i++) list.push(readJsonValue(json[i], depth + 1));
        return list;
      }
      return readStruct(json, depth);
    }
    default:
      return refuse();
  }
}

function readStruct(json: unknown, depth: number): Fields {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || depth > MAX_DEPTH) refuse();
  const out: Fields = {};
  for (const key in json) {
    if (key === '__proto__') refuse();
    out[wellFormed(key)] = readJsonValue((json as Fields)[key], depth + 1);
  }
  return out;
}

function readListValue(json: unknown, depth: number): unknown[] {
  return Array.isArray(json) ? (readJsonValue(json, depth) as unknown[]) : refuse();
}

// ---------------------------------------------------------------------------
// Code of one value
// ---------------------------------------------------------------------------

interface Compilation {
  readonly source: GeneratedSource;
  /** Message types given a function, by name (`r0`, `r1`, …). */
  readonly functions: Map<DescMessage, string>;
  readonly pending: DescMessage[];
}

/**
 * Statements that read the JSON value in `from` into `to` (a declared
 * variable), or refuse; `depth` names the nesting of the message it is in.
 * Undefined when the value's type is one the reader does not compile.
 */
function scalarCode(c: Compilation, scalar: ScalarType, from: string, to: string): string {
  const refuse = c.source.value(refuseValue);
  switch (scalar) {
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return `if (typeof ${from} !== "number" || (${from} | 0) !== ${from}) ${refuse}(); ${to} = ${from} | 0;`;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return `if (typeof ${from} !== "number" || ${from} >>> 0 !== ${from}) ${refuse}(); ${to} = ${from} >>> 0;`;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return `${to} = ${c.source.value(readInt64)}(${from});`;
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return `${to} = ${c.source.value(readUint64)}(${from});`;
    case ScalarType.FLOAT:
      // A finite number that rounds to a finite float; "NaN" and friends are left to protobuf-es.
      return `if (typeof ${from} !== "number") ${refuse}(); ${to} = Math.fround(${from}); if (${to} - ${to} !== 0) ${refuse}();`;
    case ScalarType.DOUBLE:
      return `if (typeof ${from} !== "number" || ${from} - ${from} !== 0) ${refuse}(); ${to} = ${from};`;
    case ScalarType.BOOL:
      return `if (typeof ${from} !== "boolean") ${refuse}(); ${to} = ${from};`;
    case ScalarType.STRING:
      // protobuf-es refuses a string UTF-8 cannot carry (a lone surrogate).
      return `if (typeof ${from} !== "string" || ${c.source.value(wellFormed)}(${from}) !== ${from}) ${refuse}(); ${to} = ${from};`;
    case ScalarType.BYTES:
      return `if (typeof ${from} !== "string") ${refuse}(); ${to} = ${c.source.value(base64Decode)}(${from});`;
  }
}

const refuseValue = refuse;

function enumCode(c: Compilation, desc: DescEnum, from: string, to: string): string {
  const names = new Map<string, number>();
  for (const value of desc.values) names.set(value.jsonName, value.number);
  for (const value of desc.values) names.set(value.name, value.number);
  const refuse = c.source.value(refuseValue);
  return `if (typeof ${from} === "string") { ${to} = ${c.source.value(names)}.get(${from}); if (${to} === undefined) ${refuse}(); }
    else if (typeof ${from} === "number" && (${from} | 0) === ${from}) ${to} = ${from} | 0; else ${refuse}();`;
}

/** Statements for one message value (a well-known type or a generated function's call); undefined: not compiled. */
function messageCode(c: Compilation, desc: DescMessage, from: string, to: string, depth: string): string | undefined {
  if (desc.typeName.startsWith('google.protobuf.')) {
    switch (desc.typeName) {
      case 'google.protobuf.Timestamp':
        return `${to} = ${c.source.value(readTimestamp)}(${from});`;
      case 'google.protobuf.Duration':
        return `${to} = ${c.source.value(readDuration)}(${from});`;
      case 'google.protobuf.Struct':
        return `${to} = ${c.source.value(readStruct)}(${from}, ${depth});`;
      case 'google.protobuf.Value':
        return `${to} = ${c.source.value(readJsonValue)}(${from}, ${depth});`;
      case 'google.protobuf.ListValue':
        return `${to} = ${c.source.value(readListValue)}(${from}, ${depth});`;
      // Resolved through the registry, and rewritten path by path: left to protobuf-es when present.
      case 'google.protobuf.Any':
      case 'google.protobuf.FieldMask':
        return `${c.source.value(refuseValue)}();`;
      case 'google.protobuf.Empty':
        break;
      default: {
        // ts-proto unwraps a wrapper to its scalar, and the wrapper's JSON is its value's.
        const value = desc.fields[0];
        if (WRAPPERS.has(desc.typeName) && value !== undefined && value.fieldKind === 'scalar') return scalarCode(c, value.scalar, from, to);
        return undefined;
      }
    }
  }
  if (desc.file.edition !== EDITION_PROTO3) return undefined;
  let name = c.functions.get(desc);
  if (name === undefined) {
    name = `r${c.functions.size}`;
    c.functions.set(desc, name);
    c.pending.push(desc);
  }
  return `${to} = ${name}(${from}, ${depth} + 1);`;
}

/** Statements for one value of `field` (the field itself, a list item, a map value). */
function valueCode(c: Compilation, field: DescField, from: string, to: string, depth: string): string | undefined {
  switch (field.fieldKind) {
    case 'scalar':
      return field.longAsString ? undefined : scalarCode(c, field.scalar, from, to);
    case 'enum':
      return enumCode(c, field.enum, from, to);
    case 'message':
      return messageCode(c, field.message, from, to, depth);
    case 'list':
      if (field.listKind === 'scalar') return field.longAsString ? undefined : scalarCode(c, field.scalar, from, to);
      return field.listKind === 'enum' ? enumCode(c, field.enum, from, to) : messageCode(c, field.message, from, to, depth);
    case 'map':
      if (field.mapKind === 'scalar') return scalarCode(c, field.scalar, from, to);
      return field.mapKind === 'enum' ? enumCode(c, field.enum, from, to) : messageCode(c, field.message, from, to, depth);
  }
}

/** Statements that turn the JSON key `from` of a map into ts-proto's key `to`, canonical spellings only. */
function mapKeyCode(c: Compilation, scalar: ScalarType, from: string, to: string): string {
  const refuse = c.source.value(refuseValue);
  switch (scalar) {
    case ScalarType.STRING:
      return `if (${from} === "__proto__" || ${c.source.value(wellFormed)}(${from}) !== ${from}) ${refuse}(); ${to} = ${from};`;
    case ScalarType.BOOL:
      return `if (${from} === "true") ${to} = true; else if (${from} === "false") ${to} = false; else ${refuse}();`;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return `if (String(Number(${from}) >>> 0) !== ${from}) ${refuse}(); ${to} = ${from};`;
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return `if (String(Number(${from}) | 0) !== ${from}) ${refuse}(); ${to} = ${from};`;
    default:
      return `${to} = ${c.source.value(int64Text)}(${from}, ${is64Bit(scalar) && scalar !== ScalarType.UINT64 && scalar !== ScalarType.FIXED64});`;
  }
}

/** The statements of one field's member: read its JSON value `from` into the local `to`. */
function memberCode(c: Compilation, field: DescField, from: string, to: string): string | undefined {
  const refuse = c.source.value(refuseValue);
  const item = c.source.local();
  switch (field.fieldKind) {
    case 'list': {
      const read = valueCode(c, field, `${from}[i]`, item, 'd');
      if (read === undefined) return undefined;
      return `if (!Array.isArray(${from})) ${refuse}(); ${to} = []; for (let i = 0; i < ${from}.length; i++) { let ${item}; ${read} ${to}.push(${item}); }`;
    }
    case 'map': {
      const read = valueCode(c, field, `${from}[mk]`, item, 'd');
      if (read === undefined) return undefined;
      const key = c.source.local('key');
      const keyRead = mapKeyCode(c, field.mapKey, 'mk', key);
      const jsMap = mapIsJsMap(field.mapKey);
      const put = jsMap ? `${to}.set(${key}, ${item});` : `${to}[${key}] = ${item};`;
      return `if (${from} === null || typeof ${from} !== "object" || Array.isArray(${from})) ${refuse}(); ${to} = ${jsMap ? 'new Map()' : '{}'};
        for (const mk in ${from}) { let ${key}, ${item}; ${keyRead} ${read} ${put} }`;
    }
    default:
      return valueCode(c, field, from, to, 'd');
  }
}

/** The zero value ts-proto gives a member that is not in the JSON. */
function defaultCode(field: DescField): string {
  switch (field.fieldKind) {
    case 'list':
      return '[]';
    case 'map':
      return mapIsJsMap(field.mapKey) ? 'new Map()' : '{}';
    case 'message':
      return 'undefined';
    case 'enum':
      return field.presence === IMPLICIT ? '0' : 'undefined';
    case 'scalar':
      if (field.presence !== IMPLICIT) return 'undefined';
      switch (field.scalar) {
        case ScalarType.STRING:
          return '""';
        case ScalarType.BOOL:
          return 'false';
        case ScalarType.BYTES:
          return 'new Uint8Array(0)';
        default:
          return is64Bit(field.scalar) ? '0n' : '0';
      }
  }
}

/**
 * One message type's function: every JSON member is matched by its JSON or
 * proto name, read into a local, and the object is built at the end in
 * ts-proto's property order. A member named twice (both names) or two
 * members of one oneof are refused, as protobuf-es refuses them.
 */
function messageFunction(c: Compilation, desc: DescMessage, name: string): string | undefined {
  const refuse = c.source.value(refuseValue);
  // One local per member (field or oneof), in ts-proto's property order.
  const locals = new Map<DescField | string, string>();
  const members: string[] = [];
  for (const member of desc.members) {
    if (member.name === '__proto__') return undefined;
    const local = c.source.local('m');
    const property = literal(tsProtoPropertyName(member.name));
    if (member.kind === 'oneof') {
      locals.set(member.name, local);
      members.push(`${property}: ${local}`);
    } else {
      locals.set(member, local);
      members.push(`${property}: ${local} === undefined ? ${defaultCode(member)} : ${local}`);
    }
  }
  const cases: string[] = [];
  for (const field of desc.fields) {
    if (field.jsonName === '__proto__') return undefined;
    const value = c.source.local('x');
    const names = field.name === field.jsonName ? [field.jsonName] : [field.jsonName, field.name];
    let body: string;
    if (field.oneof !== undefined) {
      // A second member of the oneof (or this one under its other name) is refused.
      const oneof = locals.get(field.oneof.name) as string;
      const read = c.source.local('o');
      const code = memberCode(c, field, value, read);
      if (code === undefined) return undefined;
      const property = literal(tsProtoPropertyName(field.name));
      body = `if (${oneof} !== undefined) ${refuse}(); let ${read}; ${code} ${oneof} = { $case: ${property}, [${property}]: ${read} };`;
    } else {
      const local = locals.get(field) as string;
      const code = memberCode(c, field, value, local);
      if (code === undefined) return undefined;
      // Under both of its names: JSON.parse drops exact repeats, not these.
      body = `${names.length > 1 ? `if (${local} !== undefined) ${refuse}(); ` : ''}${code}`;
    }
    cases.push(`${names.map((n) => `case ${literal(n)}:`).join(' ')} { const ${value} = j[k]; ${body} break; }`);
  }
  const declared = [...locals.values()];
  return `function ${name}(j, d) {
    if (j === null || typeof j !== "object" || Array.isArray(j) || d > ${MAX_DEPTH}) ${refuse}();
    ${declared.length > 0 ? `let ${declared.join(', ')};` : ''}
    for (const k in j) {
      switch (k) {
        ${cases.join('\n        ')}
        default: ${refuse}();
      }
    }
    return { ${members.join(', ')} };
  }`;
}

/**
 * The compiled reader of `desc`'s JSON into ts-proto's objects, or undefined
 * when the message (or one it reaches) is not proto3, is itself a
 * well-known type, or holds `jstype = JS_STRING` fields.
 */
export function compileTsProtoJsonReader(desc: DescMessage): TsProtoJsonReader | undefined {
  if (desc.typeName.startsWith('google.protobuf.') && desc.typeName !== 'google.protobuf.Empty') return undefined;
  if (desc.file.edition !== EDITION_PROTO3) return undefined;
  const c: Compilation = { source: new GeneratedSource(), functions: new Map([[desc, 'r0']]), pending: [desc] };
  const functions: string[] = [];
  for (let i = 0; i < c.pending.length; i++) {
    const type = c.pending[i] as DescMessage;
    const text = messageFunction(c, type, c.functions.get(type) as string);
    if (text === undefined) return undefined;
    functions.push(text);
  }
  const read = c.source.compile<(json: unknown, depth: number) => unknown>(`${functions.join('\n')}\nreturn r0;`);
  return (json) => read(json, 1);
}
