/**
 * JSON Schema for proto messages in proto3 JSON (camelCase keys, well-known
 * types in their JSON forms), tightened by `buf.validate` rules, in two forms:
 * - `input`: what a request may carry (int64 as a number or a string, enum
 *   names or numbers), the handler-side validation schema;
 * - `canonical`: exactly what the canonical proto3 JSON writer emits (int64
 *   and uint64 as strings, enums as names, floats as numbers or
 *   "NaN"/"Infinity"/"-Infinity", no unknown keys), the OpenAPI components
 *   that describe replies.
 * The output compiles with ajv (draft-07 and 2020-12 vocabularies: `$defs`,
 * `$ref`, `format` from ajv-formats).
 */
import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';
import type { Json, SimpleSchema } from './model';

/** The `buf.validate.FieldRules` of one field, as proto3 JSON (only set rules present). */
export interface FieldRulesJson {
  required?: boolean;
  string?: Record<string, Json>;
  repeated?: Record<string, Json> & { items?: FieldRulesJson };
  [numeric: string]: Json | FieldRulesJson | undefined;
}

/** Reads a field's validation rules; undefined when it has none. */
export type RulesReader = (field: DescField) => FieldRulesJson | undefined;

type Obj = { [key: string]: Json };

/** Which JSON a schema describes: what requests may carry, or what the canonical writer emits. */
export type SchemaForm = 'input' | 'canonical';

/** A decimal 64-bit integer as canonical proto3 JSON writes it. */
const INT64_TEXT: Obj = { type: 'string', pattern: '^-?(0|[1-9][0-9]{0,18})$' };
const UINT64_TEXT: Obj = { type: 'string', pattern: '^(0|[1-9][0-9]{0,19})$' };
/** float and double: a JSON number, or the three non-finite values as strings. */
const FLOATING: Obj = { anyOf: [{ type: 'number' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }] };

function nullable(schema: Obj): Obj {
  return { anyOf: [schema, { type: 'null' }] };
}

/** Well-known types as the canonical writer emits them; a wrapper is its scalar, or null. */
const CANONICAL_WELL_KNOWN: Record<string, Obj> = {
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
  'google.protobuf.Duration': { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$' },
  'google.protobuf.FieldMask': { type: 'string', pattern: '^([a-z][a-zA-Z0-9]*(\\.[a-z][a-zA-Z0-9]*)*(,[a-z][a-zA-Z0-9]*(\\.[a-z][a-zA-Z0-9]*)*)*)?$' },
  'google.protobuf.Struct': { type: 'object' },
  'google.protobuf.Value': {},
  'google.protobuf.ListValue': { type: 'array' },
  'google.protobuf.Empty': { type: 'object', additionalProperties: false },
  'google.protobuf.Any': { type: 'object', properties: { '@type': { type: 'string' } }, required: ['@type'] },
  'google.protobuf.StringValue': { type: ['string', 'null'] },
  'google.protobuf.BytesValue': { type: ['string', 'null'], contentEncoding: 'base64' },
  'google.protobuf.BoolValue': { type: ['boolean', 'null'] },
  'google.protobuf.Int32Value': { type: ['integer', 'null'] },
  'google.protobuf.UInt32Value': { type: ['integer', 'null'], minimum: 0 },
  'google.protobuf.Int64Value': { type: ['string', 'null'], pattern: INT64_TEXT['pattern'] as string },
  'google.protobuf.UInt64Value': { type: ['string', 'null'], pattern: UINT64_TEXT['pattern'] as string },
  'google.protobuf.FloatValue': nullable(FLOATING),
  'google.protobuf.DoubleValue': nullable(FLOATING),
};

const WELL_KNOWN: Record<string, Obj> = {
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
  'google.protobuf.Duration': { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$' },
  'google.protobuf.FieldMask': { type: 'string' },
  'google.protobuf.Struct': { type: 'object' },
  'google.protobuf.Value': {},
  'google.protobuf.ListValue': { type: 'array' },
  'google.protobuf.Empty': { type: 'object' },
  'google.protobuf.Any': { type: 'object', properties: { '@type': { type: 'string' } }, required: ['@type'] },
  'google.protobuf.StringValue': { type: ['string', 'null'] },
  'google.protobuf.BytesValue': { type: ['string', 'null'], contentEncoding: 'base64' },
  'google.protobuf.BoolValue': { type: ['boolean', 'null'] },
  'google.protobuf.Int32Value': { type: ['integer', 'null'] },
  'google.protobuf.UInt32Value': { type: ['integer', 'null'], minimum: 0 },
  'google.protobuf.Int64Value': { type: ['integer', 'string', 'null'], pattern: '^-?[0-9]+$' },
  'google.protobuf.UInt64Value': { type: ['integer', 'string', 'null'], pattern: '^[0-9]+$' },
  'google.protobuf.FloatValue': { type: ['number', 'null'] },
  'google.protobuf.DoubleValue': { type: ['number', 'null'] },
};

const FORMATS: Record<string, string> = {
  email: 'email',
  hostname: 'hostname',
  ipv4: 'ipv4',
  ipv6: 'ipv6',
  uri: 'uri',
  uriRef: 'uri-reference',
  uuid: 'uuid',
};

/** A scalar as the canonical writer emits it. */
function canonicalScalarSchema(scalar: ScalarType): Obj {
  switch (scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { ...FLOATING };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { ...INT64_TEXT };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { ...UINT64_TEXT };
    default:
      return scalarSchema(scalar);
  }
}

function scalarSchema(scalar: ScalarType): Obj {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BYTES:
      return { type: 'string', contentEncoding: 'base64' };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: 'number' };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: 'integer', minimum: 0 };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: ['integer', 'string'], pattern: '^-?[0-9]+$' };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: ['integer', 'string'], pattern: '^[0-9]+$' };
    default:
      return { type: 'integer' };
  }
}

function toNumber(v: Json | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** Applies scalar rules (string, numeric) to a scalar schema. */
function applyScalarRules(schema: Obj, rules: FieldRulesJson | undefined): void {
  if (rules === undefined) return;
  const s = rules.string;
  if (s !== undefined) {
    const len = toNumber(s['len']);
    if (len !== undefined) {
      schema['minLength'] = len;
      schema['maxLength'] = len;
    }
    const min = toNumber(s['minLen']);
    if (min !== undefined) schema['minLength'] = min;
    const max = toNumber(s['maxLen']);
    if (max !== undefined) schema['maxLength'] = max;
    if (typeof s['pattern'] === 'string') schema['pattern'] = s['pattern'];
    if (typeof s['const'] === 'string') schema['const'] = s['const'];
    if (Array.isArray(s['in'])) schema['enum'] = s['in'];
    for (const [key, format] of Object.entries(FORMATS)) if (s[key] === true) schema['format'] = format;
  }
  for (const kind of ['int32', 'int64', 'uint32', 'uint64', 'float', 'double']) {
    const n = rules[kind] as Record<string, Json> | undefined;
    if (n === undefined) continue;
    const gte = toNumber(n['gte']);
    const gt = toNumber(n['gt']);
    const lte = toNumber(n['lte']);
    const lt = toNumber(n['lt']);
    const c = toNumber(n['const']);
    if (gte !== undefined) schema['minimum'] = gte;
    if (gt !== undefined) schema['exclusiveMinimum'] = gt;
    if (lte !== undefined) schema['maximum'] = lte;
    if (lt !== undefined) schema['exclusiveMaximum'] = lt;
    if (c !== undefined) schema['const'] = c;
    if (Array.isArray(n['in'])) schema['enum'] = n['in'].map((x) => toNumber(x) ?? x);
  }
}

/** Builds schemas for messages, collecting every reachable message under `defs`. */
export class SchemaBuilder {
  /** Message proto name → schema, in first-reached order. */
  readonly defs = new Map<string, Obj>();

  /**
   * @param rulesOf reads `buf.validate.field` rules of a field
   * @param refPrefix `#/$defs/` for JSON Schema, `#/components/schemas/` for OpenAPI
   * @param form what requests may carry (`input`), or what the canonical writer emits
   */
  constructor(
    private readonly rulesOf: RulesReader,
    private readonly refPrefix: string,
    private readonly form: SchemaForm = 'input',
  ) {}

  /** A schema that refers to `message` (or inlines a well-known type). */
  ref(message: DescMessage): Obj {
    const wkt = (this.form === 'canonical' ? CANONICAL_WELL_KNOWN : WELL_KNOWN)[message.typeName];
    if (wkt !== undefined) return { ...wkt };
    this.define(message);
    return { $ref: this.refPrefix + message.typeName };
  }

  /** Like `ref`, but a well-known type is also given a schema of its own under `defs`, so a method's request or response is always a `$ref`. */
  component(message: DescMessage): Obj {
    const wkt = (this.form === 'canonical' ? CANONICAL_WELL_KNOWN : WELL_KNOWN)[message.typeName];
    if (wkt === undefined) return this.ref(message);
    if (!this.defs.has(message.typeName)) this.defs.set(message.typeName, { ...wkt });
    return { $ref: this.refPrefix + message.typeName };
  }

  private define(message: DescMessage): void {
    if (this.defs.has(message.typeName)) return;
    const obj: Obj = { type: 'object' };
    this.defs.set(message.typeName, obj);
    const properties: Obj = {};
    const required: string[] = [];
    for (const field of message.fields) {
      const rules = this.rulesOf(field);
      properties[field.jsonName] = this.fieldSchema(field, rules);
      if (rules?.required === true) required.push(field.jsonName);
    }
    obj['properties'] = properties;
    if (required.length > 0) obj['required'] = required;
    // The writer emits declared fields only; input may carry unknown ones (`ignoreUnknownFields`).
    if (this.form === 'canonical') obj['additionalProperties'] = false;
    if (message.typeName.startsWith('google.protobuf.') === false) obj['title'] = message.name;
  }

  /** An enum value: input takes names or numbers; the writer emits names, and numbers only for unknown values of an open enum. */
  private enumSchema(enumeration: DescEnum): Obj {
    if (enumeration.typeName === 'google.protobuf.NullValue') return { type: 'null' };
    const names: Json[] = enumeration.values.map((v) => v.name);
    if (this.form === 'canonical') return enumeration.open ? { anyOf: [{ type: 'string', enum: names }, { type: 'integer' }] } : { type: 'string', enum: names };
    const numbers: Json[] = enumeration.values.map((v) => v.number);
    return { type: ['string', 'integer'], enum: [...names, ...numbers] };
  }

  private scalar(scalar: ScalarType): Obj {
    return this.form === 'canonical' ? canonicalScalarSchema(scalar) : scalarSchema(scalar);
  }

  private singular(field: DescField, rules: FieldRulesJson | undefined): Obj {
    if (field.fieldKind === 'message') return this.ref(field.message);
    if (field.fieldKind === 'enum') return this.enumSchema(field.enum);
    if (field.fieldKind === 'scalar') {
      const s = this.scalar(field.scalar);
      applyScalarRules(s, rules);
      if (rules?.required === true && field.scalar === ScalarType.STRING && s['minLength'] === undefined) s['minLength'] = 1;
      return s;
    }
    return {};
  }

  private fieldSchema(field: DescField, rules: FieldRulesJson | undefined): Obj {
    if (field.fieldKind === 'list') {
      let items: Obj;
      const itemRules = rules?.repeated?.items;
      if (field.listKind === 'message') items = this.ref(field.message);
      else if (field.listKind === 'enum') items = this.enumSchema(field.enum);
      else {
        items = this.scalar(field.scalar);
        applyScalarRules(items, itemRules);
      }
      const list: Obj = { type: 'array', items };
      const r = rules?.repeated;
      const min = toNumber(r?.['minItems'] as Json | undefined);
      const max = toNumber(r?.['maxItems'] as Json | undefined);
      if (min !== undefined) list['minItems'] = min;
      else if (rules?.required === true) list['minItems'] = 1;
      if (max !== undefined) list['maxItems'] = max;
      if (r?.['unique'] === true) list['uniqueItems'] = true;
      return list;
    }
    if (field.fieldKind === 'map') {
      let values: Obj;
      if (field.mapKind === 'message') values = this.ref(field.message);
      else if (field.mapKind === 'enum') values = this.enumSchema(field.enum);
      else values = this.scalar(field.scalar);
      const map: Obj = { type: 'object', additionalProperties: values };
      const keys = this.form === 'canonical' ? mapKeyPattern(field.mapKey) : undefined;
      if (keys !== undefined) map['propertyNames'] = { pattern: keys };
      return map;
    }
    return this.singular(field, rules);
  }
}

/** Map keys are JSON object keys: the decimal text of an integer key, `true`/`false` for bool; any string for string keys. */
function mapKeyPattern(key: ScalarType): string | undefined {
  switch (key) {
    case ScalarType.STRING:
      return undefined;
    case ScalarType.BOOL:
      return '^(true|false)$';
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return '^(0|[1-9][0-9]*)$';
    default:
      return '^(0|-?[1-9][0-9]*)$';
  }
}

/** The JSON type name the spec's simple shape uses for a field. */
function simpleType(field: DescField): string {
  if (field.fieldKind === 'list') return 'array';
  if (field.fieldKind === 'map') return 'object';
  if (field.fieldKind === 'enum') return 'string';
  if (field.fieldKind === 'message') {
    const wkt = WELL_KNOWN[field.message.typeName];
    const t = wkt?.['type'];
    if (typeof t === 'string') return t;
    if (Array.isArray(t) && typeof t[0] === 'string') return t[0];
    return 'object';
  }
  const s = scalarSchema(field.scalar)['type'];
  if (s === 'integer') return 'number';
  if (Array.isArray(s)) return 'number';
  return typeof s === 'string' ? s : 'string';
}

/** The spec's `{type: 'object', properties}` shape of a message (spec 2.3). */
export function simpleSchemaOf(message: DescMessage, rulesOf: RulesReader): SimpleSchema {
  const properties: SimpleSchema['properties'] = {};
  for (const field of message.fields) {
    const entry: { type: string; required?: boolean } = { type: simpleType(field) };
    if (rulesOf(field)?.required === true) entry.required = true;
    properties[field.jsonName] = entry;
  }
  return { type: 'object', properties };
}

/** A self-contained JSON Schema for `message`: root properties plus `$defs`. */
export function standaloneSchema(message: DescMessage, rulesOf: RulesReader): Obj {
  const builder = new SchemaBuilder(rulesOf, '#/$defs/');
  const root = builder.ref(message);
  const defs: Obj = {};
  for (const [name, schema] of builder.defs) defs[name] = schema;
  // The root is inlined (not a bare `$ref`) so draft-07 validators that
  // ignore `$ref` siblings still see `$defs`; it stays in `$defs` for recursion.
  const inline = builder.defs.get(message.typeName) ?? root;
  const needsDefs = Object.keys(defs).length > 1 || inline === root || JSON.stringify(inline).includes('"$ref"');
  const out: Obj = { ...inline };
  if (needsDefs) out['$defs'] = defs;
  return out;
}
