/**
 * The compiled builder of ts-proto objects against the path it stands in
 * for: ts-proto's `decode` of @bufbuild/protobuf's `toBinary`. Seeded random
 * messages (the conformance suite's TestAllTypesProto3 and every message
 * type of the checked-in generated services) are written as JSON and read
 * back by protobuf-es's `fromJson`, as the gate reads a request; the builder
 * must map every one of them to the object ts-proto decodes from their
 * binary: same values (-0 told from 0, Maps, bigints, bytes) and properties
 * in the same order. The JSON that binary rewrites (floats, lone
 * surrogates, -0) is checked one value at a time, through the gate too.
 *
 * FW_JSON_SEED=<n> replays a run (the seed is printed on failure);
 * FW_JSON_CASES=<n> reads more messages per type than the default.
 */
import { fromJson, toBinary, toJson, type JsonValue, type Message } from '@bufbuild/protobuf';
import { methodGates } from '../../runtime/rpc/message-gate';
import { tsProtoJsonExact } from '../../runtime/validation/ts-proto-json';
import { compileTsProtoObjectBuilder, type TsProtoObjectBuilder } from '../../runtime/validation/ts-proto-object-builder';
import { prng } from '../support/prng';
import { AllTypesEchoDescriptor } from './generated/all_types_echo.fw';
import { randomMessage } from './support/random-messages';
import { allTypes, CASES, SEED, shape, TARGETS, type Target } from './support/targets';

/** Messages ts-proto's own fromJSON does not read exactly: the ones the builder is for. */
const BUILT = TARGETS.filter((t) => !tsProtoJsonExact(t.schema));

/** What the gate handed handlers before the builder: ts-proto's decoding of protobuf-es's binary. */
const viaBinary = (t: Target, message: Message): unknown => t.codec.decode(toBinary(t.schema, message));

describe('the compiled ts-proto object builder gives what ts-proto decodes', () => {
  it('compiles for every generated message ts-proto does not read exactly', () => {
    expect(BUILT.map((t) => t.name)).toEqual(expect.arrayContaining(['protobuf_test_messages.proto3.TestAllTypesProto3']));
    for (const t of BUILT) expect({ type: t.name, compiled: compileTsProtoObjectBuilder(t.schema) !== undefined }).toEqual({ type: t.name, compiled: true });
  });

  it.each(BUILT.map((t) => [t.name, t] as const))(`builds ${CASES} random %s as ts-proto decodes them`, (_name, t) => {
    const build = compileTsProtoObjectBuilder(t.schema) as TsProtoObjectBuilder;
    const rand = prng(SEED ^ (t.name.length * 7));
    for (let i = 0; i < CASES; i++) {
      const where = `seed ${SEED} (replay with FW_JSON_SEED=${SEED}), ${t.name} #${i}`;
      const deep = i % 10 === 9;
      const random = randomMessage(rand, t.schema, { maxDepth: deep ? 30 : 6, fill: 0.4, hugeStrings: 0.01, registry: t.registry, deep });
      // What the gate holds after reading a request: protobuf-es's fromJson of its JSON.
      const message = fromJson(t.schema, JSON.parse(JSON.stringify(toJson(t.schema, random, { registry: t.registry }))) as JsonValue, { registry: t.registry });
      let got: unknown;
      try {
        got = shape(build(message));
      } catch {
        got = 'not built';
      }
      expect({ where, got }).toEqual({ where, got: shape(viaBinary(t, message)) });
    }
  });

  /** JSON whose values binary rewrites, read by the builder and by the gate. */
  const EXACT: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['floats rounded to 32 bits', { optionalFloat: 0.1, repeatedFloat: [0.1, 3.4e38, 1e-50, -1e-50], optionalFloatWrapper: 0.2, mapInt32Float: { '1': 0.3 } }],
    ['-0 in floats and integers', { optionalDouble: -0, optionalFloat: -0, repeatedDouble: [-0], optionalInt32: -0, repeatedInt32: [-0], optionalDoubleWrapper: -0 }],
    // protobuf-es refuses them in string fields; a Struct holds any JSON string.
    ['lone surrogates in a Struct', { optionalStruct: { '\uD800': ['\uDFFF'] }, optionalValue: 'a\uD800' }],
    ['Struct, Value and ListValue', { optionalStruct: { a: [1, '\uD800', null, { b: -0 }] }, optionalValue: { c: [] }, repeatedValue: [null, 1, 'x', true, [], {}], repeatedListValue: [[1, [2]]], repeatedStruct: [{ d: { e: null } }] }],
    ['64-bit and bool map keys', { mapInt64Int64: { '-9223372036854775808': '9223372036854775807' }, mapUint64Uint64: { '18446744073709551615': '1' }, mapBoolBool: { true: false, false: true } }],
    ['oneof members', { oneofNullValue: null }],
    ['oneof at zero', { oneofUint32: 0 }],
    ['enums, unknown numbers included', { optionalNestedEnum: 99, repeatedForeignEnum: ['FOREIGN_BAR', 7], optionalAliasedEnum: 'MOO' }],
    ['wrappers in lists', { repeatedInt64Wrapper: ['-1'], repeatedBytesWrapper: ['AAE='], repeatedBoolWrapper: [false] }],
    ['Timestamp, Duration, Any', { optionalTimestamp: '1969-12-31T23:59:59.123456789Z', repeatedDuration: ['-0.000001s'], optionalAny: { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '3s' } }],
    ['a recursive message', { recursiveMessage: { optionalInt64: '5', recursiveMessage: { optionalValue: 'deep' } } }],
  ];

  it.each(EXACT.map(([name, json]) => [name, json] as const))('builds exactly: %s', (_name, json) => {
    const message = fromJson(allTypes.schema, json as JsonValue, { registry: allTypes.registry });
    const build = compileTsProtoObjectBuilder(allTypes.schema) as TsProtoObjectBuilder;
    const expected = shape(viaBinary(allTypes, message));
    expect(shape(build(message))).toEqual(expected);
    const gates = methodGates(AllTypesEchoDescriptor, AllTypesEchoDescriptor.methods.Echo);
    expect(shape(gates?.request.fromJson(json))).toEqual(expected);
  });
});
