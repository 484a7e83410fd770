/**
 * Canonical proto3 JSON of `google.protobuf.Any` for the browser messages:
 * `{"@type": "type.googleapis.com/pkg.Msg", ...the message's fields}`, and
 * for a well-known type with JSON of its own `{"@type": ..., "value": json}`,
 * as @bufbuild/protobuf's `toJson` writes and `fromJson` reads with a
 * registry. The registry is the page's: each generated
 * `x.browser-messages.ts` of a run that holds `google/protobuf/any.proto`
 * registers its message types (their JSON and binary functions) when it is
 * loaded. A type the page never loaded cannot be written or read, and says
 * so, as protobuf-es does for a type missing from its registry: writing
 * `{typeUrl, value}` instead would be JSON no other reader takes.
 */

/** What the Any JSON needs of a generated message object (ts-proto's `MessageFns`). */
export interface PackableMessage<T = unknown> {
  encode(message: T): { finish(): Uint8Array };
  decode(bytes: Uint8Array): T;
  toJSON(message: T): unknown;
  fromJSON(json: unknown): T;
  /** Struct, Value and ListValue: the message from the plain JSON value it stands for. */
  wrap?(json: unknown): T;
  /** Struct, Value and ListValue: the plain JSON value of the message. */
  unwrap?(message: T): unknown;
}

/** An Any as generated code has it. */
export interface AnyValue {
  typeUrl: string;
  value: Uint8Array;
}

/** Full type name (`pkg.Msg`) → its generated message object, for every browser-messages file the page loaded. */
const pageTypes = /* @__PURE__ */ new Map<string, PackableMessage>();

/** Called by generated browser messages: makes their message types packable into an Any. */
export function registerMessageTypes(types: Readonly<Record<string, PackableMessage>>): void {
  for (const [name, fns] of Object.entries(types)) pageTypes.set(name, fns);
}

/** The wrappers' JSON when ts-proto leaves the value out (it is the default). */
const WRAPPER_DEFAULTS: Readonly<Record<string, unknown>> = {
  'google.protobuf.DoubleValue': 0,
  'google.protobuf.FloatValue': 0,
  'google.protobuf.Int64Value': '0',
  'google.protobuf.UInt64Value': '0',
  'google.protobuf.Int32Value': 0,
  'google.protobuf.UInt32Value': 0,
  'google.protobuf.BoolValue': false,
  'google.protobuf.StringValue': '',
  'google.protobuf.BytesValue': '',
};

/** ts-proto has these as plain JSON values (`wrap`/`unwrap`). */
const PLAIN_JSON_TYPES: Readonly<Record<string, true>> = { 'google.protobuf.Struct': true, 'google.protobuf.Value': true, 'google.protobuf.ListValue': true };

/** The other types whose JSON is no message's fields. */
const OWN_JSON_TYPES: Readonly<Record<string, true>> = { 'google.protobuf.Any': true, 'google.protobuf.Timestamp': true, 'google.protobuf.Duration': true, 'google.protobuf.FieldMask': true };

// Object literals, not Sets: a page that never packs an Any drops them all.
const isWrapper = (name: string): boolean => Object.hasOwn(WRAPPER_DEFAULTS, name);
const isPlainJson = (name: string): boolean => Object.hasOwn(PLAIN_JSON_TYPES, name);

/** Its JSON in an Any sits under `value` (protobuf's list: JSON that is not a message's fields). */
const isValueInAny = (name: string): boolean => isWrapper(name) || isPlainJson(name) || Object.hasOwn(OWN_JSON_TYPES, name);

const TYPE_URL_PREFIX = 'type.googleapis.com/';

/** `type.googleapis.com/pkg.Msg` → `pkg.Msg`. */
function typeNameOf(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

function pageType(typeUrl: string, doing: string): PackableMessage {
  const fns = pageTypes.get(typeNameOf(typeUrl));
  if (fns === undefined) {
    throw new Error(`cannot ${doing} google.protobuf.Any: "${typeUrl}" is not a message type of this page's generated code (only the files fw-gen generated with google/protobuf/any.proto, once loaded, are known)`);
  }
  return fns;
}

function messageToJson(name: string, fns: PackableMessage, message: unknown): unknown {
  if (isPlainJson(name) && fns.unwrap !== undefined) return fns.unwrap(message);
  const json = fns.toJSON(message);
  if (!isWrapper(name)) return json;
  const value = (json as { value?: unknown }).value;
  if (value === undefined) return WRAPPER_DEFAULTS[name];
  // "NaN", "Infinity" and "-Infinity" are strings in JSON.
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
}

function messageFromJson(name: string, fns: PackableMessage, json: unknown): unknown {
  if (isPlainJson(name) && fns.wrap !== undefined) return fns.wrap(json);
  return fns.fromJSON(isWrapper(name) ? { value: json } : json);
}

/** An Any as canonical JSON; an empty Any is `{}`. */
export function anyToJson(any: AnyValue): unknown {
  if (any.typeUrl === '') return {};
  const fns = pageType(any.typeUrl, 'write');
  const name = typeNameOf(any.typeUrl);
  const json = messageToJson(name, fns, fns.decode(any.value));
  if (isValueInAny(name)) return { '@type': any.typeUrl, value: json };
  return { '@type': any.typeUrl, ...(json as object) };
}

/** Canonical Any JSON as an Any (type URL `type.googleapis.com/…`, as protobuf-es packs it). */
export function anyFromJson(json: unknown): AnyValue {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new TypeError(`not a google.protobuf.Any: ${JSON.stringify(json)}`);
  const fields = json as Record<string, unknown>;
  if (Object.keys(fields).length === 0) return { typeUrl: '', value: new Uint8Array(0) };
  const typeUrl = fields['@type'];
  if (typeof typeUrl !== 'string' || typeNameOf(typeUrl) === '') throw new TypeError(`google.protobuf.Any JSON has no "@type": ${JSON.stringify(json)}`);
  const fns = pageType(typeUrl, 'read');
  const name = typeNameOf(typeUrl);
  let body: unknown;
  if (isValueInAny(name) && Object.hasOwn(fields, 'value')) body = fields['value'];
  else body = Object.fromEntries(Object.entries(fields).filter(([key]) => key !== '@type'));
  return { typeUrl: `${TYPE_URL_PREFIX}${name}`, value: fns.encode(messageFromJson(name, fns, body)).finish() };
}
