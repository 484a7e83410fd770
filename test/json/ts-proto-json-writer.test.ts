/**
 * The compiled writer of ts-proto objects' JSON against the path it stands in
 * for: @bufbuild/protobuf's `toJson` over `fromBinary` of ts-proto's own
 * encoding. Seeded random messages (the conformance suite's
 * TestAllTypesProto3 and every message type of the checked-in generated
 * services) are decoded by ts-proto and written both ways: the writer must
 * map every one of them, to the same JSON value and the same text. The
 * values issue 27 named and the ones binary rewrites (-0, floats that round
 * to 0, lone surrogates, unknown enum numbers, 64-bit limits) are checked one
 * by one; values ts-proto's types do not allow go through the gate to
 * protobuf-es's path, which answers (or refuses) as before.
 *
 * FW_JSON_SEED=<n> replays a run (the seed is printed on failure);
 * FW_JSON_CASES=<n> writes more messages per type than the default.
 */
import { create, fromBinary, toBinary, toJson, type JsonValue } from '@bufbuild/protobuf';
import { DurationSchema } from '@bufbuild/protobuf/wkt';
import type { MessageCodec } from 'fw';
import { MessageGate, methodGates } from '../../runtime/rpc/message-gate';
import { schemaSetOf } from '../../runtime/validation/schema-registry';
import { tsProtoJsonExact } from '../../runtime/validation/ts-proto-json';
import { compileTsProtoJsonWriter, type TsProtoJsonWriter } from '../../runtime/validation/ts-proto-json-writer';
import { isTsProtoBase, tsProtoPropertyName } from '../../runtime/validation/ts-proto-shapes';
import { prng } from '../support/prng';
import { AllTypesEchoDescriptor } from './generated/all_types_echo.fw';
import { randomMessage } from './support/random-messages';
import { allTypes, CASES, SEED, TARGETS, type Target } from './support/targets';

/** Messages ts-proto's own toJSON does not map exactly: the ones the compiled writer is for. */
const WRITTEN = TARGETS.filter((t) => !tsProtoJsonExact(t.schema));
const allTypesWriter = compileTsProtoJsonWriter(allTypes.schema, allTypes.registry) as TsProtoJsonWriter;

/** What the gate wrote before the compiled writer: protobuf-es over ts-proto's binary. */
function viaBinary(t: Target, value: unknown): JsonValue {
  return toJson(t.schema, fromBinary(t.schema, t.codec.encode(value)), { registry: t.registry });
}

type Outcome = { json: string } | { refused: true };

function outcome(write: () => unknown): Outcome {
  try {
    return { json: JSON.stringify(write()) };
  } catch {
    return { refused: true };
  }
}

/** ts-proto's empty TestAllTypesProto3 with `patch` over it. */
function allTypesValue(patch: Record<string, unknown>): Record<string, unknown> {
  return { ...(allTypes.codec.decode(new Uint8Array(0)) as Record<string, unknown>), ...patch };
}

describe('the compiled ts-proto JSON writer writes what @bufbuild/protobuf writes', () => {
  it('compiles for every generated message ts-proto does not map exactly, and knows their codecs', () => {
    expect(WRITTEN.map((t) => t.name)).toEqual(expect.arrayContaining(['protobuf_test_messages.proto3.TestAllTypesProto3', 'user.User']));
    for (const t of WRITTEN) {
      expect({ type: t.name, tsProto: isTsProtoBase(t.schema, t.codec.decode(new Uint8Array(0))) }).toEqual({ type: t.name, tsProto: true });
      expect({ type: t.name, compiled: compileTsProtoJsonWriter(t.schema, t.registry) !== undefined }).toEqual({ type: t.name, compiled: true });
    }
  });

  it('names properties as ts-proto does', () => {
    // The conformance suite's own awkward names, and the properties ts-proto gave them in ./generated.
    const names = ['fieldname1', 'field_name2', '_field_name3', 'field__name4_', 'field0name5', 'field_0_name6', 'fieldName7', 'FieldName8', 'field_Name9', 'Field_Name10', 'FIELD_NAME11', 'FIELD_name12', '__field_name13', '__Field_name14', 'field__name15', 'field__Name16', 'field_name17__', 'Field_name18__'];
    const properties = ['fieldname1', 'fieldName2', 'FieldName3', 'fieldName4', 'field0name5', 'field0Name6', 'fieldName7', 'FieldName8', 'fieldName9', 'FieldName10', 'fieldName11', 'FIELDName12', 'FieldName13', 'FieldName14', 'fieldName15', 'fieldName16', 'fieldName17', 'FieldName18'];
    expect(names.map(tsProtoPropertyName)).toEqual(properties);
    expect(Object.keys(allTypesValue({}))).toEqual(expect.arrayContaining(properties));
  });

  it.each(WRITTEN.map((t) => [t.name, t] as const))(`maps ${CASES} random %s exactly as protobuf-es writes them`, (_name, t) => {
    const writer = compileTsProtoJsonWriter(t.schema, t.registry) as TsProtoJsonWriter;
    const rand = prng(SEED ^ t.name.length);
    for (let i = 0; i < CASES; i++) {
      const where = `seed ${SEED} (replay with FW_JSON_SEED=${SEED}), ${t.name} #${i}`;
      const deep = i % 10 === 9;
      const message = randomMessage(rand, t.schema, { maxDepth: deep ? 30 : 6, fill: 0.4, hugeStrings: 0.01, registry: t.registry, deep });
      const value = t.codec.decode(toBinary(t.schema, message));
      const expected = viaBinary(t, value);
      let got: JsonValue | string;
      try {
        got = writer(value);
      } catch {
        got = 'not mapped';
      }
      // toEqual tells -0 from 0 (msgpack carries the difference); the text compares key order too.
      expect({ where, got }).toEqual({ where, got: expected });
      expect({ where, text: JSON.stringify(got) }).toEqual({ where, text: JSON.stringify(expected) });
    }
  });

  const duration3s = toBinary(DurationSchema, create(DurationSchema, { seconds: 3n }));

  /** Values whose JSON binary rewrites or issue 27 named, each mapped by the writer as protobuf-es writes them. */
  const EXACT: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['float -0 and double -0', { optionalFloat: -0, optionalDouble: -0 }],
    ['a float that rounds to 0 is unset', { optionalFloat: 1e-50 }],
    ['a float that rounds to -0', { optionalFloat: -1e-50 }],
    ['floats rounded to 32 bits', { optionalFloat: 0.1, repeatedFloat: [0.1, 3.4e38, -1e-50] }],
    ['NaN and Infinity', { optionalFloat: NaN, optionalDouble: -Infinity, repeatedDouble: [Infinity, 1.5, NaN] }],
    ['int32 -0 is unset', { optionalInt32: -0, repeatedInt32: [-0, -1] }],
    ['64-bit limits', { optionalInt64: 2n ** 63n - 1n, optionalSint64: -(2n ** 63n), optionalUint64: 2n ** 64n - 1n, optionalFixed64: 2n ** 64n - 1n, repeatedSfixed64: [-1n, 0n] }],
    ['lone surrogates become U+FFFD', { optionalString: 'a\uD800b\uDC00', repeatedString: ['\uDBFF'], mapStringString: { '\uD800': 'x\uDFFF' } }],
    ['unknown enum numbers', { optionalNestedEnum: 99, optionalForeignEnum: -1, repeatedNestedEnum: [0, 1, 7] }],
    ['aliased enum', { optionalAliasedEnum: 2 }],
    ['bytes', { optionalBytes: new Uint8Array([0, 1, 2, 251, 255]), repeatedBytes: [new Uint8Array(0), new Uint8Array([9])] }],
    ['maps of every key kind', { mapInt32Int32: { '-5': 0, '7': 1 }, mapUint32Uint32: { '4294967295': 2 }, mapInt64Int64: new Map([[-(2n ** 63n), 0n]]), mapUint64Uint64: new Map([[2n ** 64n - 1n, 1n]]), mapBoolBool: new Map([[true, false], [false, true]]), mapStringBytes: { '': new Uint8Array(0) } }],
    ['map message values', { mapStringNestedMessage: { a: { a: 0, corecursive: undefined } } }],
    ['oneof members at their zero value', { oneofField: { $case: 'oneofEnum', oneofEnum: 0 } }],
    ['oneof null value', { oneofField: { $case: 'oneofNullValue', oneofNullValue: 0 } }],
    ['oneof empty string', { oneofField: { $case: 'oneofString', oneofString: '' } }],
    ['oneof float', { oneofField: { $case: 'oneofFloat', oneofFloat: 1e-50 } }],
    ['wrappers at zero', { optionalInt32Wrapper: 0, optionalInt64Wrapper: 0n, optionalFloatWrapper: 1e-50, optionalBoolWrapper: false, optionalStringWrapper: '', optionalBytesWrapper: new Uint8Array(0) }],
    ['repeated wrappers', { repeatedUint64Wrapper: [2n ** 64n - 1n], repeatedBytesWrapper: [new Uint8Array([0, 1, 2, 255])], repeatedDoubleWrapper: [NaN, -0] }],
    ['Timestamp with nanos, before 1970', { optionalTimestamp: { seconds: -1n, nanos: 123456789 }, repeatedTimestamp: [{ seconds: 0n, nanos: 0 }, { seconds: 253402300799n, nanos: 999000000 }] }],
    ['Duration', { optionalDuration: { seconds: 1n, nanos: 500000000 }, repeatedDuration: [{ seconds: 0n, nanos: -1000 }, { seconds: -315576000000n, nanos: 0 }] }],
    ['Timestamp and Duration at their limits', { repeatedTimestamp: [{ seconds: -62135596800n, nanos: 0 }, { seconds: -62135596800n, nanos: 1 }, { seconds: 1n, nanos: 10000 }], repeatedDuration: [{ seconds: 0n, nanos: -500000000 }, { seconds: -1n, nanos: -5 }, { seconds: 315576000000n, nanos: 999999999 }, { seconds: 2n, nanos: 120000000 }] }],
    ['FieldMask', { optionalFieldMask: ['display_name', 'address.city'], repeatedFieldmask: [[], ['a_b']] }],
    ['Any with @type', { optionalAny: { typeUrl: 'type.googleapis.com/google.protobuf.Duration', value: duration3s }, repeatedAny: [{ typeUrl: '', value: new Uint8Array(0) }] }],
    ['Struct, Value and ListValue', { optionalStruct: { a: [1, 'x', null, { b: true }], '\uD800': -0 }, optionalValue: null, repeatedValue: ['t', 0, false, [], {}], repeatedListValue: [[], [null]], repeatedStruct: [{}] }],
    ['a recursive message', { recursiveMessage: allTypesValue({ optionalInt64: 5n, recursiveMessage: allTypesValue({ optionalValue: 'deep' }) }) }],
  ];

  it.each(EXACT.map(([name, patch]) => [name, patch] as const))('maps exactly: %s', (_name, patch) => {
    const value = allTypesValue(patch);
    const expected = viaBinary(allTypes, value);
    expect(allTypesWriter(value)).toEqual(expected);
    expect(JSON.stringify(allTypesWriter(value))).toBe(JSON.stringify(expected));
  });

  /** Values outside ts-proto's types: the writer leaves them to protobuf-es, whose answer (or refusal) the gate gives. */
  const NOT_MAPPED: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['an int32 as a string', { optionalInt32: '5' }],
    ['an int64 as a number', { optionalInt64: 5 }],
    ['an int64 out of range', { optionalInt64: 2n ** 63n }],
    ['a uint32 that is negative', { optionalUint32: -1 }],
    ['a float too large for 32 bits', { optionalFloat: 1e39 }],
    ['a bool as a number', { optionalBool: 1 }],
    ['null for a message', { optionalNestedMessage: null }],
    ['a list that is not an array', { repeatedInt32: 5 }],
    ['an object for a 64-bit map', { mapInt64Int64: { '1': 2n } }],
    ['a map key not written as a number is', { mapInt32Int32: { '01': 1 } }],
    ['a oneof case that names no member', { oneofField: { $case: 'nope' } }],
    ['NaN in a Value', { optionalValue: NaN }],
    ['undefined in a Struct', { optionalStruct: { a: undefined } }],
    ['a Date in a Struct', { optionalStruct: { d: new Date(0) } }],
    ['a Timestamp after year 9999', { optionalTimestamp: { seconds: 253402300800n, nanos: 0 } }],
    ['a Timestamp before year 1', { optionalTimestamp: { seconds: -62135596801n, nanos: 0 } }],
    ['a Timestamp with negative nanos', { optionalTimestamp: { seconds: 1n, nanos: -1 } }],
    ['a Duration beyond 10,000 years', { optionalDuration: { seconds: 315576000001n, nanos: 0 } }],
    ['a Duration whose nanos disagree with its seconds', { optionalDuration: { seconds: 1n, nanos: -1 } }],
    ['an Any of an unknown type', { optionalAny: { typeUrl: 'type.googleapis.com/no.Such', value: new Uint8Array(0) } }],
    ['a FieldMask path with no camelCase', { optionalFieldMask: ['a__b'] }],
  ];

  it.each(NOT_MAPPED.map(([name, patch]) => [name, patch] as const))('leaves to protobuf-es: %s', (_name, patch) => {
    const value = allTypesValue(patch);
    expect(() => allTypesWriter(value)).toThrow();
    const md = AllTypesEchoDescriptor.methods.Echo;
    const gates = methodGates(AllTypesEchoDescriptor, md);
    // The reply's codec: encodes the value as it is (a request's codec completes it first).
    const reply: Target = { ...allTypes, codec: md.responseCodec as MessageCodec<unknown> };
    expect(outcome(() => gates?.response.toJson(value))).toEqual(outcome(() => viaBinary(reply, value)));
  });

  it('keeps protobuf-es’s path for a codec that does not decode to ts-proto objects', () => {
    const set = schemaSetOf(AllTypesEchoDescriptor.fileDescriptorProtos ?? []);
    if (set === undefined) throw new Error('no registry');
    const schema = allTypes.schema;
    const codec: MessageCodec<unknown> = {
      encode: (m) => toBinary(schema, m as never),
      decode: (bytes) => fromBinary(schema, bytes),
      fromJSON: () => {
        throw new Error('unused');
      },
      toJSON: () => {
        throw new Error('unused');
      },
    };
    expect(isTsProtoBase(schema, codec.decode(new Uint8Array(0)))).toBe(false);
    const gate = new MessageGate(set, schema, codec, {}, 'response');
    const rand = prng(SEED);
    for (let i = 0; i < 20; i++) {
      const message = randomMessage(rand, schema, { maxDepth: 4, fill: 0.4, hugeStrings: 0, registry: set.typeRegistry });
      expect(gate.toJson(message)).toEqual(toJson(schema, message, { registry: set.typeRegistry }));
    }
  });
});
