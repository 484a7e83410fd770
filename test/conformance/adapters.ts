/**
 * One adapter per wire form the conformance cases run over: each makes a
 * call the way a real client of that protocol does and reports the outcome
 * in one shape, filling only what its protocol carries (`carries`). The
 * clients live in http-adapters.ts, socket-adapters.ts and grpc-adapters.ts;
 * this is the table.
 */
import { HOST } from '../gateway/support/clients';
import { JSON_CODEC, PROTO_CODEC, type Adapter, type AdapterSpec, type Carried, type Connection, type GatewayPorts, type Servers } from './adapter-types';
import { fwGrpcClient, fwGrpcProtoClient, grpcJs, inProcess } from './grpc-adapters';
import { connect, grpcWeb, httpJson, httpStream } from './http-adapters';
import { h2cClient } from './http-client';
import { tcp, udp, webSocket, webSocketBinary } from './socket-adapters';

export { MALFORMED, type Adapter, type Connection, type Outcome } from './adapter-types';

const base = (at: GatewayPorts): string => `http://${HOST}:${at.port}`;
const ALL: readonly Carried[] = ['code', 'grpc', 'message'];
const EVERY_KIND = ['unary', 'server', 'client', 'bidi'] as const;

// The HTTP side picks the reply's form from the method: one JSON body (HTTP/JSON) or a stream of lines or events.
const ONE_REPLY = { unary: 'a method with one reply answers one JSON body (the HTTP/JSON row)', client: 'a method with one reply answers one JSON body (the HTTP/JSON row)' };
const UDP_ONE_REPLY = 'a datagram carries one request and one reply (a streaming method answers STREAMING_NOT_SUPPORTED)';

/** A gateway wire form, opened against a gateway's address (its own port, or an fw app's port hosting it). */
interface GatewayAdapter extends Omit<AdapterSpec, 'server'> {
  open(at: GatewayPorts): Promise<Connection>;
}

/** The gateway's wire forms, each parameterised by the address it talks to. */
const GATEWAY_ADAPTERS: readonly GatewayAdapter[] = [
  {
    name: 'HTTP/JSON', kinds: ['unary', 'client'], codec: 'json', carries: ['code', 'http', 'message'],
    kindsNot: { server: 'a streaming reply is NDJSON or SSE (their rows)', bidi: 'a streaming reply is NDJSON or SSE (their rows)' },
    open: async (at) => httpJson(base(at)),
  },
  // A bidi call over NDJSON/SSE sends its items as one JSON array body: half duplex, as HTTP/JSON clients do.
  { name: 'NDJSON', kinds: ['server', 'bidi'], kindsNot: ONE_REPLY, codec: 'json', carries: ['code', 'message'], open: async (at) => httpStream(base(at), false) },
  { name: 'SSE', kinds: ['server', 'bidi'], kindsNot: ONE_REPLY, codec: 'json', carries: ['code', 'message'], open: async (at) => httpStream(base(at), true) },
  // Connect and gRPC-Web over HTTP/1.1: fw's server is full duplex there, so client and bidi streams work (the test sends each body whole).
  { name: 'Connect JSON', kinds: EVERY_KIND, codec: 'json', carries: ALL, open: async (at) => connect(base(at), JSON_CODEC, 'json') },
  { name: 'Connect proto', kinds: EVERY_KIND, codec: 'proto', carries: ALL, open: async (at) => connect(base(at), PROTO_CODEC, 'proto') },
  { name: 'gRPC-Web JSON', kinds: EVERY_KIND, codec: 'json', carries: ALL, open: async (at) => grpcWeb(base(at), JSON_CODEC, 'json') },
  { name: 'gRPC-Web proto', kinds: EVERY_KIND, codec: 'proto', carries: ALL, open: async (at) => grpcWeb(base(at), PROTO_CODEC, 'proto') },
  { name: 'gRPC-Web text', kinds: EVERY_KIND, codec: 'proto', carries: ALL, open: async (at) => grpcWeb(base(at), PROTO_CODEC, 'text') },
  // Over h2c the gateway's gRPC server takes the connection and hands Connect and gRPC-Web streams to their transport.
  { name: 'Connect proto (h2c)', kinds: EVERY_KIND, codec: 'proto', carries: ALL, open: async (at) => connect(base(at), PROTO_CODEC, 'proto', h2cClient(base(at))) },
  { name: 'gRPC-Web proto (h2c)', kinds: EVERY_KIND, codec: 'proto', carries: ALL, open: async (at) => grpcWeb(base(at), PROTO_CODEC, 'proto', h2cClient(base(at))) },
  { name: 'gRPC JSON (gateway)', kinds: EVERY_KIND, codec: 'json', carries: ALL, clientEnforcesDeadline: true, open: async (at) => grpcJs(at.port, JSON_CODEC) },
  { name: 'gRPC proto (gateway)', kinds: EVERY_KIND, codec: 'proto', carries: ALL, clientEnforcesDeadline: true, open: async (at) => grpcJs(at.port, PROTO_CODEC) },
  { name: 'WebSocket json', kinds: EVERY_KIND, codec: 'json', carries: ['code', 'message'], open: (at) => webSocket(base(at), 'json') },
  { name: 'WebSocket msgpack', kinds: EVERY_KIND, codec: 'json', carries: ['code', 'message'], open: (at) => webSocket(base(at), 'msgpack') },
  { name: 'WebSocket binary', kinds: EVERY_KIND, codec: 'json', carries: ['code', 'message'], open: (at) => webSocketBinary(base(at)) },
  { name: 'TCP', kinds: EVERY_KIND, codec: 'json', carries: ['code', 'message'], open: (at) => tcp(at.port) },
  {
    name: 'UDP', kinds: ['unary'], codec: 'json', carries: ['code', 'message'], cannotCancel: true,
    kindsNot: { server: UDP_ONE_REPLY, client: UDP_ONE_REPLY, bidi: UDP_ONE_REPLY },
    open: async (at) => udp(at.udpPort),
  },
];

/** Suffix of an adapter's name when it talks to the gateway hosted on an fw app's port. */
export const HOSTED = ' (hosted)';

/** The gateway's wire forms against one of its two addresses. */
function atGateway(server: 'gateway' | 'hosted'): Adapter[] {
  return GATEWAY_ADAPTERS.map((a) => ({
    ...a,
    name: server === 'hosted' ? `${a.name}${HOSTED}` : a.name,
    form: a.name,
    server,
    open: (s: Servers) => a.open(server === 'hosted' ? s.hosted : s.gateway),
  }));
}

/** A `server.grpc()` client, opened against an app's port. */
interface GrpcAppAdapter extends Omit<AdapterSpec, 'server'> {
  open(port: number): Promise<Connection>;
}

/** server.grpc()'s clients over a socket, each parameterised by the port of the app it calls. */
const GRPC_APP_ADAPTERS: readonly GrpcAppAdapter[] = [
  // server.grpc() names the fw code (x-error-code) only for errors that have one; its status is the contract.
  { name: 'server.grpc() JSON (grpc-js client)', kinds: EVERY_KIND, codec: 'json', carries: ['grpc', 'message'], open: async (port) => grpcJs(port, JSON_CODEC) },
  { name: 'server.grpc() proto (grpc-js client)', kinds: EVERY_KIND, codec: 'proto', carries: ['grpc', 'message'], open: async (port) => grpcJs(port, PROTO_CODEC) },
  { name: 'server.grpc() (fw/grpc-client)', kinds: EVERY_KIND, codec: 'json', carries: ['grpc', 'message'], encodesItself: true, open: async (port) => fwGrpcClient(`${HOST}:${port}`) },
  // The generated client is typed from the descriptor: it has no way to name a method or service the proto lacks.
  { name: 'server.grpc() proto (fw/grpc-client)', kinds: EVERY_KIND, codec: 'proto', carries: ['grpc', 'message'], namesOnlyKnownMethods: true, encodesItself: true, open: async (port) => fwGrpcProtoClient(`${HOST}:${port}`) },
];

/** Suffix of an adapter's name when it calls the `server.grpc()` app on the grpc-js engine. */
export const ON_GRPC_JS = " (engine: 'grpc-js')";

/** server.grpc()'s socket clients against the app on one engine: fw's node:http2 (default) or grpc-js. */
function atGrpcApp(server: 'grpc-app' | 'grpc-js-app'): Adapter[] {
  return GRPC_APP_ADAPTERS.map((a) => ({
    ...a,
    name: server === 'grpc-js-app' ? `${a.name}${ON_GRPC_JS}` : a.name,
    form: a.name,
    server,
    open: (s: Servers) => a.open(server === 'grpc-js-app' ? s.grpcJsPort : s.grpcPort),
  }));
}

/**
 * Every adapter: the gateway's wire forms on its own port and hosted on an
 * fw app's port, then server.grpc()'s clients on fw's engine, fw/testing,
 * and the socket clients again on the grpc-js engine (fw/testing reaches
 * the app without a socket, through no engine: it runs once).
 */
export const ADAPTERS: readonly Adapter[] = [
  ...atGateway('gateway'),
  ...atGateway('hosted'),
  ...atGrpcApp('grpc-app'),
  { name: 'fw/testing', kinds: EVERY_KIND, server: 'grpc-app', codec: 'json', carries: ['grpc', 'message'], namesOnlyKnownMethods: true, encodesItself: true, inProcess: true, open: async (s) => inProcess(s.grpcApp) },
  { name: 'fw/testing proto', kinds: EVERY_KIND, server: 'grpc-app', codec: 'proto', carries: ['grpc', 'message'], namesOnlyKnownMethods: true, encodesItself: true, inProcess: true, open: async (s) => inProcess(s.grpcApp, true) },
  ...atGrpcApp('grpc-js-app'),
];
