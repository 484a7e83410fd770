/**
 * ts-proto's object of a request, built straight from the message
 * @bufbuild/protobuf's `fromJson` read: what
 * `codec.decode(toBinary(schema, message))` gives, without the trip through
 * binary. One builder per message type, compiled once from its descriptor.
 * What binary would rewrite is rewritten the same way: floats rounded to 32
 * bits, lone surrogates to U+FFFD, -0 in an integer field to 0; wrappers,
 * Struct, Value, ListValue and FieldMask unwrapped as ts-proto unwraps them;
 * properties in ts-proto's order.
 *
 * A value of a shape the builder does not expect makes it throw, and the
 * caller takes the trip through binary.
 */
import { ScalarType, type DescField, type DescMessage, type DescOneof, type Message } from '@bufbuild/protobuf';
import { copyJsonValue, EDITION_PROTO3, IMPLICIT, mapIsJsMap, ownSites, refuse, tsProtoPropertyName, WRAPPERS, wellFormed, type Fields } from './ts-proto-shapes';

/** Builds ts-proto's object from a protobuf-es message; throws for a shape it does not expect. */
export type TsProtoObjectBuilder = (message: Message) => unknown;

type Build = (value: unknown) => unknown;
type BuildMember = (message: Fields, out: Fields) => void;

// ---------------------------------------------------------------------------
// Scalars and enums
// ---------------------------------------------------------------------------

const buildInt32: Build = (v) => (typeof v === 'number' ? v | 0 : refuse());
const buildUint32: Build = (v) => (typeof v === 'number' ? v >>> 0 : refuse());
const buildInt64: Build = (v) => (typeof v === 'bigint' ? v : refuse());
const buildFloat: Build = (v) => (typeof v === 'number' ? Math.fround(v) : refuse());
const buildDouble: Build = (v) => (typeof v === 'number' ? v : refuse());
const buildBool: Build = (v) => (typeof v === 'boolean' ? v : refuse());
const buildString: Build = (v) => (typeof v === 'string' ? wellFormed(v) : refuse());
const buildBytes: Build = (v) => (v instanceof Uint8Array ? v : refuse());

function scalarBuilder(scalar: ScalarType): Build {
  switch (scalar) {
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return buildInt32;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return buildUint32;
    case ScalarType.FLOAT:
      return buildFloat;
    case ScalarType.DOUBLE:
      return buildDouble;
    case ScalarType.BOOL:
      return buildBool;
    case ScalarType.STRING:
      return buildString;
    case ScalarType.BYTES:
      return buildBytes;
    default:
      return buildInt64;
  }
}

// ---------------------------------------------------------------------------
// Well-known types
// ---------------------------------------------------------------------------

function messageOf(v: unknown, typeName: string): Fields {
  return v !== null && typeof v === 'object' && (v as Fields)['$typeName'] === typeName ? (v as Fields) : refuse();
}

function secondsAndNanosBuilder(typeName: string): Build {
  return (v) => {
    const m = messageOf(v, typeName);
    return { seconds: buildInt64(m['seconds']), nanos: buildInt32(m['nanos']) };
  };
}

const buildFieldMask: Build = (v) => {
  const paths = messageOf(v, 'google.protobuf.FieldMask')['paths'];
  if (!Array.isArray(paths)) refuse();
  return paths.map(buildString);
};

const buildAny: Build = (v) => {
  const m = messageOf(v, 'google.protobuf.Any');
  return { typeUrl: buildString(m['typeUrl']), value: buildBytes(m['value']) };
};

/** google.protobuf.Value as a message (in lists, maps and other Values) to the JSON value ts-proto unwraps it to. */
const buildValue: Build = (v) => {
  const kind = messageOf(v, 'google.protobuf.Value')['kind'] as { case?: string; value?: unknown } | undefined;
  switch (kind?.case) {
    case 'nullValue':
      return null;
    case 'numberValue':
      return buildDouble(kind.value);
    case 'stringValue':
      return buildString(kind.value);
    case 'boolValue':
      return buildBool(kind.value);
    case 'structValue':
      return buildStruct(kind.value);
    case 'listValue':
      return buildListValue(kind.value);
    default:
      return refuse();
  }
};

/** google.protobuf.Struct, as protobuf-es holds it in a field (a JSON object) or as a message. */
const buildStruct: Build = (v) => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) refuse();
  if ((v as Fields)['$typeName'] === undefined) return copyJsonValue(v, 1);
  const fields = messageOf(v, 'google.protobuf.Struct')['fields'];
  if (fields === null || typeof fields !== 'object') refuse();
  const out: Fields = {};
  for (const key of Object.keys(fields)) {
    if (key === '__proto__') refuse();
    out[wellFormed(key)] = buildValue((fields as Fields)[key]);
  }
  return out;
};

const buildListValue: Build = (v) => {
  const values = messageOf(v, 'google.protobuf.ListValue')['values'];
  if (!Array.isArray(values)) refuse();
  return values.map(buildValue);
};

/** A wrapper: protobuf-es unboxes it in a singular field and keeps the message elsewhere; ts-proto always unboxes. */
function wrapperBuilder(desc: DescMessage, scalar: ScalarType): Build {
  const build = scalarBuilder(scalar);
  return (v) => (v !== null && typeof v === 'object' && (v as Fields)['$typeName'] === desc.typeName ? build((v as Fields)['value']) : build(v));
}

// ---------------------------------------------------------------------------
// Messages and fields
// ---------------------------------------------------------------------------

interface Compilation {
  readonly messages: Map<DescMessage, { build: Build; done: boolean } | null>;
}

function messageValueBuilder(c: Compilation, desc: DescMessage): Build | undefined {
  if (desc.typeName.startsWith('google.protobuf.')) {
    switch (desc.typeName) {
      case 'google.protobuf.Timestamp':
      case 'google.protobuf.Duration':
        return secondsAndNanosBuilder(desc.typeName);
      case 'google.protobuf.FieldMask':
        return buildFieldMask;
      case 'google.protobuf.Any':
        return buildAny;
      case 'google.protobuf.Struct':
        return buildStruct;
      case 'google.protobuf.Value':
        return buildValue;
      case 'google.protobuf.ListValue':
        return buildListValue;
      case 'google.protobuf.Empty':
        break;
      default: {
        const value = desc.fields[0];
        if (WRAPPERS.has(desc.typeName) && value !== undefined && value.fieldKind === 'scalar') return wrapperBuilder(desc, value.scalar);
        return undefined;
      }
    }
  }
  return messageBuilder(c, desc);
}

function messageBuilder(c: Compilation, desc: DescMessage): Build | undefined {
  const known = c.messages.get(desc);
  if (known === null) return undefined;
  if (known !== undefined) return known.done ? known.build : (v) => known.build(v);
  if (desc.file.edition !== EDITION_PROTO3) return undefined;
  const slot = { build: refuse as Build, done: false };
  c.messages.set(desc, slot);
  const members: BuildMember[] = [];
  // ts-proto's objects list fields and oneofs in declaration order, as `members` does.
  for (const member of desc.members) {
    const build = member.kind === 'oneof' ? oneofBuilder(c, member) : fieldBuilder(c, member);
    if (build === undefined) {
      c.messages.set(desc, null);
      return undefined;
    }
    members.push(build);
  }
  const typeName = desc.typeName;
  slot.build = (v) => {
    const message = messageOf(v, typeName);
    const out: Fields = {};
    for (let i = 0; i < members.length; i++) (members[i] as BuildMember)(message, out);
    return out;
  };
  slot.done = true;
  return slot.build;
}

/** The builder of one value of `field` (a list item, a map value). */
function valueBuilder(c: Compilation, field: DescField): Build | undefined {
  switch (field.fieldKind) {
    case 'scalar':
      return field.longAsString ? undefined : scalarBuilder(field.scalar);
    case 'enum':
      return buildInt32;
    case 'message':
      return messageValueBuilder(c, field.message);
    case 'list':
      if (field.listKind === 'scalar') return field.longAsString ? undefined : scalarBuilder(field.scalar);
      return field.listKind === 'enum' ? buildInt32 : messageValueBuilder(c, field.message);
    case 'map':
      if (field.mapKind === 'scalar') return scalarBuilder(field.scalar);
      return field.mapKind === 'enum' ? buildInt32 : messageValueBuilder(c, field.message);
  }
}

function oneofBuilder(c: Compilation, oneof: DescOneof): BuildMember | undefined {
  const property = tsProtoPropertyName(oneof.name);
  const local = oneof.localName;
  const cases = new Map<string, { property: string; build: Build }>();
  for (const field of oneof.fields) {
    const build = valueBuilder(c, field);
    if (build === undefined) return undefined;
    cases.set(field.localName, { property: tsProtoPropertyName(field.name), build });
  }
  return (message, out) => {
    const selected = message[local] as { case?: string; value?: unknown } | undefined;
    if (selected === undefined || selected.case === undefined) {
      out[property] = undefined;
      return;
    }
    const member = cases.get(selected.case) ?? refuse();
    const union: Fields = { $case: member.property };
    union[member.property] = member.build(selected.value);
    out[property] = union;
  };
}

function fieldBuilder(c: Compilation, field: DescField): BuildMember | undefined {
  if (field.name === '__proto__') return undefined;
  const build = valueBuilder(c, field);
  if (build === undefined) return undefined;
  const property = tsProtoPropertyName(field.name);
  const local = field.localName;
  switch (field.fieldKind) {
    case 'list': {
      const body = `const items = message[${JSON.stringify(local)}]; if (!Array.isArray(items)) refuse();
        const list = []; for (let i = 0; i < items.length; i++) list.push(build(items[i]));
        out[${JSON.stringify(property)}] = list;`;
      return ownSites<BuildMember>(['build', 'refuse'], `return function (message, out) { ${body} };`, build, refuse);
    }
    case 'map':
      return mapBuilder(field.mapKey, local, property, build);
    case 'message':
    case 'scalar':
    case 'enum': {
      const read = JSON.stringify(local);
      const put = JSON.stringify(property);
      const body =
        field.fieldKind !== 'message' && field.presence === IMPLICIT
          ? `out[${put}] = build(message[${read}]);`
          : `const value = message[${read}]; out[${put}] = value === undefined ? undefined : build(value);`;
      return ownSites<BuildMember>(['build'], `return function (message, out) { ${body} };`, build);
    }
  }
}

/** protobuf-es holds a map as an object keyed by strings; ts-proto as a `Map` (64-bit, bool keys) or an object. */
function mapBuilder(mapKey: ScalarType, local: string, property: string, build: Build): BuildMember {
  if (mapIsJsMap(mapKey)) {
    const key = mapKey === ScalarType.BOOL ? (k: string) => (k === 'true' ? true : k === 'false' ? false : refuse()) : (k: string) => BigInt(k);
    return (message, out) => {
      const record = message[local];
      if (record === null || typeof record !== 'object') refuse();
      const map = new Map<unknown, unknown>();
      for (const k of Object.keys(record)) map.set(key(k), build((record as Fields)[k]));
      out[property] = map;
    };
  }
  const stringKeys = mapKey === ScalarType.STRING;
  return (message, out) => {
    const record = message[local];
    if (record === null || typeof record !== 'object') refuse();
    const object: Fields = {};
    for (const k of Object.keys(record)) {
      if (k === '__proto__') refuse();
      object[stringKeys ? wellFormed(k) : k] = build((record as Fields)[k]);
    }
    out[property] = object;
  };
}

/**
 * The compiled builder of `desc`'s ts-proto objects, or undefined when the
 * message (or one it contains) is not proto3, is itself a well-known type, or
 * holds `jstype = JS_STRING` fields.
 */
export function compileTsProtoObjectBuilder(desc: DescMessage): TsProtoObjectBuilder | undefined {
  if (desc.typeName.startsWith('google.protobuf.') && desc.typeName !== 'google.protobuf.Empty') return undefined;
  return messageBuilder({ messages: new Map() }, desc);
}
