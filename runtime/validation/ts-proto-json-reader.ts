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
import { fieldValue, GeneratedFunctions, sameValueScalarCode, scalarGroup, messageMapping, literal, type FieldValue, type GeneratedSource, type WellKnownJson } from './generated-source';
import { copyJsonValue, copyStruct, DURATION_SECONDS_MAX, IMPLICIT, is64Bit, MAX_DEPTH, mapIsJsMap, refuse, tsProtoPropertyName, wellFormed, type Fields } from './ts-proto-shapes';

/** Reads one message's parsed JSON into ts-proto's object; throws for what it does not take. */
export type TsProtoJsonReader = (json: unknown) => unknown;


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

function readListValue(json: unknown, depth: number): unknown[] {
  return Array.isArray(json) ? (copyJsonValue(json, depth) as unknown[]) : refuse();
}

// ---------------------------------------------------------------------------
// Code of one value
// ---------------------------------------------------------------------------

interface Compilation {
  readonly functions: GeneratedFunctions;
  readonly source: GeneratedSource;
}

/** Statements that read the JSON scalar in `from` into `to` (a declared variable), or refuse. */
function scalarCode(c: Compilation, scalar: ScalarType, from: string, to: string): string {
  const refuse = c.source.value(refuseValue);
  const group = scalarGroup(scalar);
  switch (group) {
    case 'int64':
      return `${to} = ${c.source.value(readInt64)}(${from});`;
    case 'uint64':
      return `${to} = ${c.source.value(readUint64)}(${from});`;
    case 'float':
      // A finite number that rounds to a finite float; "NaN" and friends are left to protobuf-es.
      return `if (typeof ${from} !== "number") ${refuse}(); ${to} = Math.fround(${from}); if (${to} - ${to} !== 0) ${refuse}();`;
    case 'double':
      return `if (typeof ${from} !== "number" || ${from} - ${from} !== 0) ${refuse}(); ${to} = ${from};`;
    case 'string':
      // protobuf-es refuses a string UTF-8 cannot carry (a lone surrogate).
      return `if (typeof ${from} !== "string" || ${c.source.value(wellFormed)}(${from}) !== ${from}) ${refuse}(); ${to} = ${from};`;
    case 'bytes':
      return `if (typeof ${from} !== "string") ${refuse}(); ${to} = ${c.source.value(base64Decode)}(${from});`;
    default:
      return sameValueScalarCode(group, from, to, refuse) as string;
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

/** The reading of each well-known type's JSON form; Any (resolved through the registry) and FieldMask (rewritten path by path) are left to protobuf-es. */
const WELL_KNOWN: Record<WellKnownJson, ((json: unknown, depth: number) => unknown) | undefined> = {
  Timestamp: readTimestamp,
  Duration: readDuration,
  Struct: copyStruct,
  Value: copyJsonValue,
  ListValue: readListValue,
  Any: undefined,
  FieldMask: undefined,
};

/** Statements for one value of a field (the field itself, a list item, a map value); undefined: not compiled. */
function valueCode(c: Compilation, value: FieldValue | undefined, from: string, to: string, depth: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.kind === 'scalar') return scalarCode(c, value.scalar, from, to);
  if (value.kind === 'enum') return enumCode(c, value.desc, from, to);
  const mapping = messageMapping(value.desc);
  if (mapping === undefined) return undefined;
  if (mapping === 'message') return `${to} = ${c.functions.nameOf(value.desc)}(${from}, ${depth} + 1);`;
  if (typeof mapping === 'object') return scalarCode(c, mapping.wrapper, from, to);
  const read = WELL_KNOWN[mapping];
  return read === undefined ? `${c.source.value(refuseValue)}();` : `${to} = ${c.source.value(read)}(${from}, ${depth});`;
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
      const read = valueCode(c, fieldValue(field), `${from}[n]`, item, 'd');
      if (read === undefined) return undefined;
      return `if (!Array.isArray(${from})) ${refuse}(); ${to} = []; for (let n = 0; n < ${from}.length; n++) { let ${item}; ${read} ${to}.push(${item}); }`;
    }
    case 'map': {
      const read = valueCode(c, fieldValue(field), `${from}[mk]`, item, 'd');
      if (read === undefined) return undefined;
      const key = c.source.local('key');
      const keyRead = mapKeyCode(c, field.mapKey, 'mk', key);
      const jsMap = mapIsJsMap(field.mapKey);
      const put = jsMap ? `${to}.set(${key}, ${item});` : `${to}[${key}] = ${item};`;
      return `if (${from} === null || typeof ${from} !== "object" || Array.isArray(${from})) ${refuse}(); ${to} = ${jsMap ? 'new Map()' : '{}'};
        for (const mk of Object.keys(${from})) { let ${key}, ${item}; ${keyRead} ${read} ${put} }`;
    }
    default:
      return valueCode(c, fieldValue(field), from, to, 'd');
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
      body = `if (${oneof} !== undefined) ${refuse}(); let ${read}; ${code} ${oneof} = { $case: ${property}, ${property}: ${read} };`;
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
    // Own members only, as protobuf-es reads them: an inherited property is no member.
    const keys = Object.keys(j);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
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
  if (messageMapping(desc) !== 'message') return undefined;
  const functions = new GeneratedFunctions('r');
  const c: Compilation = { functions, source: functions.source };
  const read = functions.compile<(json: unknown, depth: number) => unknown>(desc, (type, name) => messageFunction(c, type, name));
  return read === undefined ? undefined : (json) => read(json, 1);
}
