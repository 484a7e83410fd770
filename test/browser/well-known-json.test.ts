/**
 * The browser messages' JSON of 64-bit integers, Timestamp, Duration,
 * FieldMask and the wrappers against @bufbuild/protobuf, on the conformance
 * suite's TestAllTypesProto3 (test/json/generated, its browser messages as
 * fw-gen derives them): seeded random messages built with protobuf-es,
 * holding only fields of those kinds, reach the browser messages as the
 * Node codec decodes them; the browser's `toJSON` must be protobuf-es's
 * `toJson`, and its `fromJSON` of protobuf-es's JSON must encode to the same
 * message. fw/browser's helpers refuse what protobuf-es `fromJson` refuses.
 * Any and enums: any-enum-json.test.ts; Struct fields stay ts-proto's own JSON.
 *
 * FW_JSON_SEED=<n> replays a run (the seed is printed on failure).
 */
import { create, equals, fromBinary, fromJson, toBinary, toJson, type DescField, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf';
import { reflect } from '@bufbuild/protobuf/reflect';
import { DurationSchema, FieldMaskSchema } from '@bufbuild/protobuf/wkt';
import { durationFromJson, durationToJson, fieldMaskFromJson, fieldMaskToJson } from 'fw/browser';
import { schemaSetOf } from '../../runtime/validation/schema-registry';
import { TestAllTypesProto3 as BrowserTestAllTypes } from '../json/generated/google/protobuf/test_messages_proto3.browser-messages';
import { TestAllTypesProto3 as NodeTestAllTypes } from '../json/generated/google/protobuf/test_messages_proto3';
import { AllTypesEchoDescriptor } from '../json/generated/all_types_echo.fw';
import { randomMessage } from '../json/support/random-messages';
import { prng } from '../support/prng';

const SEED = process.env['FW_JSON_SEED'] !== undefined ? Number(process.env['FW_JSON_SEED']) : Math.floor(Math.random() * 2 ** 31);
const CASES = 300;

const set = schemaSetOf(AllTypesEchoDescriptor.fileDescriptorProtos ?? []);
if (set === undefined) throw new Error('the embedded descriptors do not form a registry');
const registry = set.typeRegistry;
const schema = registry.getMessage('protobuf_test_messages.proto3.TestAllTypesProto3') as DescMessage;

const IN_SCOPE_TYPES = new Set([
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
  'google.protobuf.FieldMask',
  ...['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map((w) => `google.protobuf.${w}Value`),
]);
/** int64, uint64, sint64, fixed64, sfixed64. */
const SIXTY_FOUR_BIT = new Set([3, 4, 6, 16, 18]);

function inScope(field: DescField): boolean {
  if (field.oneof !== undefined) return false;
  switch (field.fieldKind) {
    case 'scalar':
      return SIXTY_FOUR_BIT.has(field.scalar);
    case 'message':
      return IN_SCOPE_TYPES.has(field.message.typeName);
    case 'list':
      return field.listKind === 'scalar' ? SIXTY_FOUR_BIT.has(field.scalar) : field.listKind === 'message' && IN_SCOPE_TYPES.has(field.message.typeName);
    case 'map':
      return field.mapKind === 'scalar' && SIXTY_FOUR_BIT.has(field.mapKey) && SIXTY_FOUR_BIT.has(field.scalar);
    default:
      return false;
  }
}

/** A random message with only the fields this test is about, and JSON can write (no NaN in a wrapper: protobuf-es writes "NaN", as the browser must). */
function scopedMessage(rand: () => number): Message {
  const full = randomMessage(rand, schema, { maxDepth: 1, fill: 0.6, hugeStrings: 0, registry });
  const out = create(schema);
  const from = reflect(schema, full);
  const to = reflect(schema, out);
  for (const field of schema.fields) if (inScope(field) && from.isSet(field)) to.set(field, from.get(field) as never);
  return out;
}

const where = (i: number): string => `seed ${SEED} (replay with FW_JSON_SEED=${SEED}), message ${i}`;

describe('browser messages write and read 64-bit integers and well-known types as protobuf-es does', () => {
  it(`agrees with toJson and fromJson on ${CASES} random messages`, () => {
    const rand = prng(SEED);
    for (let i = 0; i < CASES; i++) {
      const message = scopedMessage(rand);
      const expected = toJson(schema, message, { registry }) as JsonValue;
      const value = NodeTestAllTypes.decode(toBinary(schema, message));
      const written = JSON.parse(JSON.stringify(BrowserTestAllTypes.toJSON(value))) as unknown;
      expect({ where: where(i), json: written }).toEqual({ where: where(i), json: JSON.parse(JSON.stringify(expected)) });
      // What the wire carries is the text (JSON has no -0): the browser must read what protobuf-es reads from it.
      const sent = JSON.parse(JSON.stringify(expected)) as JsonValue;
      const oracle = fromJson(schema, sent, { registry });
      const back = fromBinary(schema, NodeTestAllTypes.encode(BrowserTestAllTypes.fromJSON(sent)).finish());
      const same = equals(schema, back, oracle, { registry }) || Buffer.from(toBinary(schema, back)).equals(Buffer.from(toBinary(schema, oracle)));
      if (!same) expect({ where: where(i), json: toJson(schema, back, { registry }) }).toEqual({ where: where(i), json: toJson(schema, oracle, { registry }) });
    }
  });

  it('Duration: the edges, both ways', () => {
    const cases: [bigint, number][] = [[0n, 0], [1n, 500_000_000], [-1n, -500_000_000], [0n, -1], [0n, 1], [315576000000n, 999_999_999], [-315576000000n, -999_999_999], [3n, 1000], [3n, 1_000_000]];
    for (const [seconds, nanos] of cases) {
      const json = toJson(DurationSchema, create(DurationSchema, { seconds, nanos }));
      expect(durationToJson({ seconds, nanos })).toBe(json);
      expect(durationFromJson(json)).toEqual({ seconds, nanos });
    }
  });

  it('refuses what protobuf-es refuses', () => {
    for (const json of ['1.5', '1.5 s', '1.0000000001s', '315576000001s', '+1s', '1e3s', '', 5, { seconds: 1 }]) {
      expect(() => fromJson(DurationSchema, json as JsonValue)).toThrow();
      expect(() => durationFromJson(json)).toThrow();
    }
    for (const value of [{ seconds: 1n, nanos: -1 }, { seconds: 315576000001n, nanos: 0 }, { seconds: 0n, nanos: 1_000_000_000 }]) {
      expect(() => toJson(DurationSchema, create(DurationSchema, value))).toThrow();
      expect(() => durationToJson(value)).toThrow();
    }
    for (const json of ['a_b', ['a'], 3]) {
      expect(() => fromJson(FieldMaskSchema, json as JsonValue)).toThrow();
      expect(() => fieldMaskFromJson(json)).toThrow();
    }
    for (const paths of [['a__b'], ['A']]) {
      expect(() => toJson(FieldMaskSchema, create(FieldMaskSchema, { paths }))).toThrow();
      expect(() => fieldMaskToJson(paths)).toThrow();
    }
  });
});
