/**
 * The browser messages' JSON of google.protobuf.Any and of enum numbers no
 * value names, against @bufbuild/protobuf with a registry, on the
 * conformance suite's TestAllTypesProto3 (test/json/generated, whose run
 * holds any.proto: its browser messages keep the binary codec and register
 * their types). Seeded random messages built with protobuf-es hold enum
 * fields (15% of values unknown: 99, -7, 2^31-1), Any fields packing a
 * TestAllTypesProto3 of the same kind, NestedMessage, ForeignMessage and
 * every well-known type with JSON of its own (an Any in an Any too), and
 * the 64-bit and well-known fields of well-known-json.test.ts. They reach the
 * browser messages as the Node codec decodes them; the browser's `toJSON`
 * must be protobuf-es's `toJson`, and its `fromJSON` of protobuf-es's JSON
 * must encode to the same message. An Any of a type the page has no
 * generated code for fails both ways, as protobuf-es does without the type.
 *
 * FW_JSON_SEED=<n> replays a run (the seed is printed on failure).
 */
import { create, equals, fromBinary, fromJson, toBinary, toJson, type DescField, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf';
import { reflect } from '@bufbuild/protobuf/reflect';
import { anyPack, AnySchema, type Any } from '@bufbuild/protobuf/wkt';
import { anyFromJson, anyToJson } from 'fw/browser';
import { schemaSetOf } from '../../runtime/validation/schema-registry';
import {
  TestAllTypesProto3 as BrowserTestAllTypes,
  TestAllTypesProto3_NestedEnum,
  testAllTypesProto3_NestedEnumFromJSON,
  testAllTypesProto3_NestedEnumToJSON,
} from '../json/generated/google/protobuf/test_messages_proto3.browser-messages';
import { TestAllTypesProto3 as NodeTestAllTypes } from '../json/generated/google/protobuf/test_messages_proto3';
import { AllTypesEchoDescriptor } from '../json/generated/all_types_echo.fw';
import { randomMessage } from '../json/support/random-messages';
import { prng } from '../support/prng';

const SEED = process.env['FW_JSON_SEED'] !== undefined ? Number(process.env['FW_JSON_SEED']) : Math.floor(Math.random() * 2 ** 31);
const CASES = 300;
/** An Any holds a TestAllTypesProto3 (or an Any) at most this deep. */
const MAX_DEPTH = 2;

const set = schemaSetOf(AllTypesEchoDescriptor.fileDescriptorProtos ?? []);
if (set === undefined) throw new Error('the embedded descriptors do not form a registry');
const registry = set.typeRegistry;
const messageOf = (name: string): DescMessage => {
  const desc = registry.getMessage(name);
  if (desc === undefined) throw new Error(`${name} is not in the registry`);
  return desc;
};
const schema = messageOf('protobuf_test_messages.proto3.TestAllTypesProto3');

const WELL_KNOWN_IN_SCOPE = new Set([
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
  'google.protobuf.FieldMask',
  ...['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map((w) => `google.protobuf.${w}Value`),
]);
/** What an Any packs besides a TestAllTypesProto3 and another Any. */
const PACKED = [
  'protobuf_test_messages.proto3.ForeignMessage',
  'protobuf_test_messages.proto3.TestAllTypesProto3.NestedMessage',
  ...WELL_KNOWN_IN_SCOPE,
  'google.protobuf.Struct',
  'google.protobuf.Value',
  'google.protobuf.ListValue',
].map(messageOf);
/** int64, uint64, sint64, fixed64, sfixed64. */
const SIXTY_FOUR_BIT = new Set([3, 4, 6, 16, 18]);
const NULL_VALUE = 'google.protobuf.NullValue';

/** Fields of well-known-json.test.ts, and enums (NullValue is JSON null, ts-proto's own: out of scope). */
function inScope(field: DescField): boolean {
  if (field.oneof !== undefined) return false;
  switch (field.fieldKind) {
    case 'scalar':
      return SIXTY_FOUR_BIT.has(field.scalar);
    case 'enum':
      return field.enum.typeName !== NULL_VALUE;
    case 'message':
      return WELL_KNOWN_IN_SCOPE.has(field.message.typeName);
    case 'list':
      if (field.listKind === 'enum') return field.enum.typeName !== NULL_VALUE;
      return field.listKind === 'scalar' ? SIXTY_FOUR_BIT.has(field.scalar) : field.listKind === 'message' && WELL_KNOWN_IN_SCOPE.has(field.message.typeName);
    case 'map':
      if (field.mapKind === 'enum') return field.enum.typeName !== NULL_VALUE;
      return field.mapKind === 'scalar' && SIXTY_FOUR_BIT.has(field.mapKey) && SIXTY_FOUR_BIT.has(field.scalar);
    default:
      return false;
  }
}

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;

/** A random Any: of a TestAllTypesProto3 of this test's kind, another Any, a small message or a well-known type. */
function randomAny(rand: () => number, depth: number): Message {
  const roll = rand();
  if (depth < MAX_DEPTH && roll < 0.25) return anyPack(schema, scopedMessage(rand, depth + 1));
  if (depth < MAX_DEPTH && roll < 0.35) return anyPack(AnySchema, randomAny(rand, depth + 1) as Any);
  const packed = pick(rand, PACKED);
  const message =
    packed.typeName === 'protobuf_test_messages.proto3.TestAllTypesProto3.NestedMessage'
      ? create(packed, { a: pick(rand, [0, 1, -1, 2147483647]) } as never)
      : randomMessage(rand, packed, { maxDepth: 2, fill: 0.6, hugeStrings: 0, registry });
  return anyPack(packed, message);
}

/** A random message with only the fields this test is about. */
function scopedMessage(rand: () => number, depth: number): Message {
  const full = randomMessage(rand, schema, { maxDepth: 1, fill: depth === 0 ? 0.6 : 0.25, hugeStrings: 0, registry });
  const out = create(schema);
  const from = reflect(schema, full);
  const to = reflect(schema, out);
  for (const field of schema.fields) if (inScope(field) && from.isSet(field)) to.set(field, from.get(field) as never);
  const fields = out as unknown as Record<string, unknown>;
  if (rand() < 0.6) fields['optionalAny'] = randomAny(rand, depth);
  if (rand() < 0.4) fields['repeatedAny'] = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => randomAny(rand, depth));
  return out;
}

const where = (i: number): string => `seed ${SEED} (replay with FW_JSON_SEED=${SEED}), message ${i}`;

describe('browser messages write and read Any and unknown enum numbers as protobuf-es does', () => {
  it(`agrees with toJson and fromJson (with a registry) on ${CASES} random messages`, () => {
    const rand = prng(SEED);
    const packedSeen = new Set<string>();
    let unknownEnums = 0;
    for (let i = 0; i < CASES; i++) {
      const message = scopedMessage(rand, 0);
      const expected = JSON.parse(JSON.stringify(toJson(schema, message, { registry }))) as JsonValue;
      const text = JSON.stringify(expected);
      for (const m of text.matchAll(/"@type":"type\.googleapis\.com\/([\w.]+)"/g)) packedSeen.add(m[1] as string);
      unknownEnums += (text.match(/Enum":(99|-7|2147483647)\b/g) ?? []).length;
      const value = NodeTestAllTypes.decode(toBinary(schema, message));
      const written = JSON.parse(JSON.stringify(BrowserTestAllTypes.toJSON(value))) as unknown;
      expect({ where: where(i), json: written }).toEqual({ where: where(i), json: expected });
      const oracle = fromJson(schema, expected, { registry });
      const back = fromBinary(schema, NodeTestAllTypes.encode(BrowserTestAllTypes.fromJSON(expected)).finish());
      if (!equals(schema, back, oracle, { registry, unpackAny: true })) {
        expect({ where: where(i), json: toJson(schema, back, { registry }) }).toEqual({ where: where(i), json: toJson(schema, oracle, { registry }) });
      }
    }
    // The run covered what it is about: every packed type, an Any in an Any, a TestAllTypesProto3 in an Any, unknown enum numbers.
    expect({ seed: SEED, missing: [...PACKED.map((d) => d.typeName), 'google.protobuf.Any', schema.typeName].filter((n) => !packedSeen.has(n)) }).toEqual({ seed: SEED, missing: [] });
    expect(unknownEnums).toBeGreaterThan(0);
  });

  it('an enum number no value names is written and read as that number', () => {
    for (const n of [99, -7, 2147483647]) {
      const message = create(schema, { optionalNestedEnum: n } as never);
      expect(toJson(schema, message)).toEqual({ optionalNestedEnum: n });
      expect(testAllTypesProto3_NestedEnumToJSON(n)).toBe(n);
      expect(testAllTypesProto3_NestedEnumFromJSON(n)).toBe(n);
      expect(BrowserTestAllTypes.toJSON(NodeTestAllTypes.decode(toBinary(schema, message)))).toEqual({ optionalNestedEnum: n });
    }
    expect(testAllTypesProto3_NestedEnumFromJSON('BAZ')).toBe(TestAllTypesProto3_NestedEnum.BAZ);
    expect(testAllTypesProto3_NestedEnumFromJSON(2)).toBe(TestAllTypesProto3_NestedEnum.BAZ);
  });

  it('an Any keeps its type URL prefix when written; read, it is type.googleapis.com/ as protobuf-es packs it', () => {
    const foreign = messageOf('protobuf_test_messages.proto3.ForeignMessage');
    const packed = { typeUrl: 'example.com/x/protobuf_test_messages.proto3.ForeignMessage', value: toBinary(foreign, create(foreign, { c: 5 } as never)) };
    const expected = toJson(AnySchema, create(AnySchema, packed), { registry });
    expect(anyToJson(packed)).toEqual(expected);
    expect(expected).toEqual({ '@type': packed.typeUrl, c: 5 });
    const read = fromJson(AnySchema, expected, { registry });
    expect(anyFromJson(expected)).toEqual({ typeUrl: read.typeUrl, value: read.value });
    expect(anyToJson({ typeUrl: '', value: new Uint8Array(0) })).toEqual(toJson(AnySchema, create(AnySchema), { registry }));
    expect(anyFromJson({})).toEqual({ typeUrl: '', value: new Uint8Array(0) });
  });

  it('an Any of a type the page has no generated code for fails both ways, as protobuf-es does without the type', () => {
    const unknown = { typeUrl: 'type.googleapis.com/elsewhere.Missing', value: new Uint8Array(0) };
    expect(() => toJson(AnySchema, create(AnySchema, unknown), { registry })).toThrow(/not in the type registry/);
    expect(() => anyToJson(unknown)).toThrow(/"type\.googleapis\.com\/elsewhere\.Missing" is not a message type of this page's generated code/);
    const json = { '@type': unknown.typeUrl, a: 1 };
    expect(() => fromJson(AnySchema, json, { registry })).toThrow(/not in the type registry/);
    expect(() => anyFromJson(json)).toThrow(/is not a message type of this page's generated code/);
    for (const bad of [null, [], 'x', { a: 1 }, { '@type': '' }, { '@type': 'prefix/' }]) {
      expect(() => fromJson(AnySchema, bad as JsonValue, { registry })).toThrow();
      expect(() => anyFromJson(bad)).toThrow();
    }
  });
});
