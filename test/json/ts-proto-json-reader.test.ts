/**
 * The one-pass JSON reader against the path it stands in for:
 * @bufbuild/protobuf's `fromJson`, then ts-proto's `decode` of its
 * `toBinary`. Seeded random messages (the conformance suite's
 * TestAllTypesProto3 and every message type of the checked-in generated
 * services) are written by protobuf-es in several of its JSON options and
 * then mutated at random places (wrong types, numbers as strings, nulls,
 * out-of-range values, unknown and doubled members, odd timestamps); for
 * each, the reader must either refuse (the gate then asks protobuf-es) or
 * give exactly the object that path gives — and must refuse every input
 * protobuf-es refuses.
 *
 * FW_JSON_SEED=<n> replays a run (the seed is printed on failure);
 * FW_JSON_CASES=<n> reads more messages per type than the default.
 */
import { fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { methodGates } from '../../runtime/rpc/message-gate';
import { compileTsProtoJsonReader, type TsProtoJsonReader } from '../../runtime/validation/ts-proto-json-reader';
import { prng } from '../support/prng';
import { AllTypesEchoDescriptor } from './generated/all_types_echo.fw';
import { randomMessage } from './support/random-messages';
import { allTypes, CASES, SEED, shape, TARGETS, type Target } from './support/targets';


const REFUSED = 'refused';

/** What the gate hands the handler without the reader: protobuf-es's fromJson, then ts-proto's decoding of its binary; or REFUSED. */
function oracle(t: Target, json: unknown): unknown {
  let message;
  try {
    message = fromJson(t.schema, json as JsonValue, { registry: t.registry });
  } catch {
    return REFUSED;
  }
  return shape(t.codec.decode(toBinary(t.schema, message)));
}

function read(reader: TsProtoJsonReader, json: unknown): unknown {
  try {
    return shape(reader(json));
  } catch {
    return REFUSED;
  }
}

type Rand = () => number;
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;

/** Values put in random places: each is wrong for some fields, right (in an unusual spelling) for others. */
const ODD_VALUES: readonly unknown[] = [
  null, '1', '01', '-0', '1e3', ' 1', '', 1.5, -0, 0, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 53, 2 ** 53 + 2, 1e40, -1e-50, 3.4028235e38,
  '9223372036854775807', '9223372036854775808', '-9223372036854775808', '18446744073709551615', '18446744073709551616', '00', 'NaN', 'Infinity', '-Infinity',
  true, 'true', [], [null], {}, { a: 1 }, '\uD800', 'a\uDFFFb', 'AAE=', 'AAE', 'AA-_', '!!', 'FOREIGN_BAR', 'foreign_bar', 'MOO', 99, 'UNKNOWN_NAME',
  '1970-01-01T00:00:00Z', '2024-02-29T12:00:00.5Z', '2023-02-29T00:00:00Z', '2024-01-01T24:00:00Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999999Z',
  '2024-01-01T00:00:00+01:00', '2024-01-01t00:00:00z', '2024-01-01T00:00:00.1234567890Z', '1s', '-0.5s', '1.000000001s', '315576000001s', '01s', '1.s', '1sx',
  'a,b', 'fooBar', 'foo_bar', { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '1s' },
];

/** Every object and array in `json` (the root included), with a path to report. */
function containers(json: unknown, out: Array<Record<string, unknown> | unknown[]> = []): Array<Record<string, unknown> | unknown[]> {
  if (json !== null && typeof json === 'object') {
    out.push(json as Record<string, unknown>);
    for (const v of Object.values(json)) containers(v, out);
  }
  return out;
}

const clone = (json: unknown): unknown => JSON.parse(JSON.stringify(json));

/** `json` with one change somewhere: a value replaced, a member added, a member renamed to its proto name. */
function mutate(rand: Rand, json: unknown, schema: DescMessage): unknown {
  const copy = clone(json);
  const places = containers(copy);
  const place = pick(rand, places);
  const keys = Object.keys(place);
  const roll = rand();
  if (Array.isArray(place)) {
    if (place.length > 0) place[Math.floor(rand() * place.length)] = pick(rand, ODD_VALUES);
    else place.push(pick(rand, ODD_VALUES));
  } else if (roll < 0.15 || keys.length === 0) {
    // A member it may not have: a field of the top type (right or wrong level), or unknown.
    const field = schema.fields.length > 0 && rand() < 0.7 ? pick(rand, schema.fields) : undefined;
    place[field !== undefined ? (rand() < 0.5 ? field.name : field.jsonName) : pick(rand, ['unknownKey', '__proto__', '@type', '[ext]'])] = pick(rand, ODD_VALUES);
  } else if (roll < 0.25) {
    // A member under the proto name as well (a field set twice).
    const field = schema.fields.find((f) => f.jsonName in place && f.name !== f.jsonName);
    if (field !== undefined) place[field.name] = place[field.jsonName];
  } else {
    place[pick(rand, keys)] = pick(rand, ODD_VALUES);
  }
  return copy;
}

describe('the one-pass JSON reader gives what protobuf-es and ts-proto give, or refuses', () => {
  it('compiles for every proto3 message of the generated services', () => {
    for (const t of TARGETS) expect({ type: t.name, compiled: compileTsProtoJsonReader(t.schema) !== undefined }).toEqual({ type: t.name, compiled: true });
  });

  it.each(TARGETS.map((t) => [t.name, t] as const))(`reads ${CASES} random %s and their mutations as protobuf-es does`, (_name, t) => {
    const reader = compileTsProtoJsonReader(t.schema) as TsProtoJsonReader;
    const rand = prng(SEED ^ (t.name.length * 13));
    let taken = 0;
    for (let i = 0; i < CASES; i++) {
      const where = `seed ${SEED} (replay with FW_JSON_SEED=${SEED}), ${t.name} #${i}`;
      const deep = i % 10 === 9;
      // Every other message sparse: with many fields set, nearly every TestAllTypesProto3 holds something left to protobuf-es.
      const random = randomMessage(rand, t.schema, { maxDepth: deep ? 30 : 6, fill: i % 2 === 0 ? 0.4 : 0.05, hugeStrings: 0.01, registry: t.registry, deep });
      const options = pick(rand, [{}, { useProtoFieldName: true }, { enumAsInteger: true }, { alwaysEmitImplicit: true }]);
      const json = clone(toJson(t.schema, random, { registry: t.registry, ...options }));
      const expected = oracle(t, json);
      const got = read(reader, json);
      if (got !== REFUSED) {
        taken++;
        expect({ where, json, got }).toEqual({ where, json, got: expected });
      }
      for (let m = 0; m < 4; m++) {
        const odd = mutate(rand, json, t.schema);
        const oddExpected = oracle(t, odd);
        const oddGot = read(reader, odd);
        // Refusing is always allowed (protobuf-es then decides); taking is only allowed with protobuf-es's own answer.
        if (oddGot !== REFUSED) expect({ where: `${where} mutation ${m}`, odd, got: oddGot }).toEqual({ where: `${where} mutation ${m}`, odd, got: oddExpected });
      }
    }
    // The reader is there to be used: canonical JSON is mostly taken. TestAllTypesProto3's random messages
    // mostly hold one of what is left to protobuf-es (NaN, Any, FieldMask, a null member), so fewer.
    const least = t === allTypes ? CASES / 10 : CASES / 4;
    expect({ type: t.name, taken, enough: taken >= least }).toEqual({ type: t.name, taken, enough: true });
  });

  /** Spellings the reader takes, each against the oracle. */
  const TAKEN: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['64-bit extremes, as strings and as numbers', { optionalInt64: '-9223372036854775808', optionalUint64: '18446744073709551615', repeatedInt64: [9007199254740991, '9007199254740993', 0], optionalSint64: '9223372036854775807' }],
    ['floats rounded to 32 bits, -0 kept in floats only', { optionalFloat: 0.1, repeatedFloat: [0.1, 3.4e38, 1e-50, -1e-50], optionalDouble: -0, optionalInt32: -0, optionalFloatWrapper: 0.2 }],
    ['Timestamp and Duration with nanoseconds', { optionalTimestamp: '1969-12-31T23:59:59.123456789Z', repeatedTimestamp: ['0100-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z'], optionalDuration: '-0.000001s', repeatedDuration: ['315576000000s', '-1.5s', '0s'] }],
    ['Struct, Value and ListValue', { optionalStruct: { a: [1, '\uD800', null, { b: -0 }] }, optionalValue: { c: [] }, repeatedValue: [null, 1, 'x', true, [], {}], repeatedListValue: [[1, [2]]] }],
    ['maps over every key kind', { mapInt32Int32: { '-1': 1, '7': -0 }, mapUint32Uint32: { '4294967295': 1 }, mapInt64Int64: { '-9223372036854775808': '9223372036854775807' }, mapBoolBool: { true: false, false: true }, mapStringString: { '': 'x', ünï: '' } }],
    ['enums by name, alias and number', { optionalNestedEnum: 99, repeatedForeignEnum: ['FOREIGN_BAR', 7], optionalAliasedEnum: 'MOO' }],
    ['oneof members', { oneofUint32: 0 }],
    ['proto field names', { optional_int32: 1, repeated_string: ['a'], map_string_string: { a: 'b' } }],
    ['bytes in both alphabets', { optionalBytes: 'AAE=', repeatedBytes: ['-_8', ''] }],
  ];

  it.each(TAKEN.map(([name, json]) => [name, json] as const))('takes: %s', (_name, json) => {
    const reader = compileTsProtoJsonReader(allTypes.schema) as TsProtoJsonReader;
    const expected = oracle(allTypes, json);
    expect(expected).not.toBe(REFUSED);
    expect(read(reader, json)).toEqual(expected);
    // And through the gate, which uses the reader for a service without rules.
    const gates = methodGates(AllTypesEchoDescriptor, AllTypesEchoDescriptor.methods.Echo);
    expect(shape(gates?.request.fromJson(json))).toEqual(expected);
  });

  it('reads own members only, as protobuf-es does (an inherited property is no member)', () => {
    const reader = compileTsProtoJsonReader(allTypes.schema) as TsProtoJsonReader;
    const inherited = Object.create({ optionalInt32: 5, mapStringString: { a: 'b' } }) as Record<string, unknown>;
    inherited['optionalNestedMessage'] = Object.create({ a: 1 });
    inherited['mapInt32Int32'] = Object.create({ '1': 2 });
    const expected = oracle(allTypes, inherited);
    expect(expected).not.toBe(REFUSED);
    expect(read(reader, inherited)).toEqual(expected);
  });

  /** Inputs the reader leaves to protobuf-es: the gate must still answer as protobuf-es does. */
  const LEFT: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['numbers as strings', { optionalInt32: '1', optionalDouble: '1.5', optionalFloat: 'NaN' }],
    ['null members', { optionalInt32: null, optionalNestedMessage: null, optionalValue: null }],
    ['Any and FieldMask', { optionalAny: { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '3s' }, optionalFieldMask: 'fooBar,baz' }],
    ['a timestamp with an offset', { optionalTimestamp: '2024-01-01T01:00:00+01:00' }],
    ['non-canonical map keys', { mapInt32Int32: { '01': 1 }, mapInt64Int64: { '-0': '1' } }],
  ];

  it.each(LEFT.map(([name, json]) => [name, json] as const))('leaves to protobuf-es, which takes: %s', (_name, json) => {
    const reader = compileTsProtoJsonReader(allTypes.schema) as TsProtoJsonReader;
    expect(read(reader, json)).toBe(REFUSED);
    const expected = oracle(allTypes, json);
    expect(expected).not.toBe(REFUSED);
    const gates = methodGates(AllTypesEchoDescriptor, AllTypesEchoDescriptor.methods.Echo);
    expect(shape(gates?.request.fromJson(json))).toEqual(expected);
  });
});
