/**
 * One adapter per wire form the conformance cases run over: each makes a
 * call the way a real client of that protocol does and reports the outcome
 * in one shape, filling only what its protocol carries (`carries`). The
 * clients live in http-adapters.ts, socket-adapters.ts and grpc-adapters.ts;
 * this is the table.
 */
import { HOST } from '../gateway/support/clients';
import { JSON_CODEC, PROTO_CODEC, type Adapter, type Carried, type Servers } from './adapter-types';
import { fwGrpcClient, fwGrpcProtoClient, grpcJs, inProcess } from './grpc-adapters';
import { connect, grpcWeb, httpJson, httpStream } from './http-adapters';
import { h2cClient } from './http-client';
import { tcp, udp, webSocket, webSocketBinary } from './socket-adapters';

export { MALFORMED, type Adapter, type Connection, type Outcome } from './adapter-types';

const base = (s: Servers): string => `http://${HOST}:${s.gatewayPort}`;
const ALL: readonly Carried[] = ['code', 'grpc', 'message'];
const EVERY_KIND = ['unary', 'server', 'client', 'bidi'] as const;

// The HTTP side picks the reply's form from the method: one JSON body (HTTP/JSON) or a stream of lines or events.
const ONE_REPLY = { unary: 'a method with one reply answers one JSON body (the HTTP/JSON row)', client: 'a method with one reply answers one JSON body (the HTTP/JSON row)' };
const UDP_ONE_REPLY = 'a datagram carries one request and one reply (a streaming method answers STREAMING_NOT_SUPPORTED)';

/** Every adapter: the gateway's wire forms, then server.grpc()'s clients. */
export const ADAPTERS: readonly Adapter[] = [
  {
    name: 'HTTP/JSON', kinds: ['unary', 'client'], server: 'gateway', codec: 'json', carries: ['code', 'http', 'message'],
    kindsNot: { server: 'a streaming reply is NDJSON or SSE (their rows)', bidi: 'a streaming reply is NDJSON or SSE (their rows)' },
    open: async (s) => httpJson(base(s)),
  },
  // A bidi call over NDJSON/SSE sends its items as one JSON array body: half duplex, as HTTP/JSON clients do.
  { name: 'NDJSON', kinds: ['server', 'bidi'], kindsNot: ONE_REPLY, server: 'gateway', codec: 'json', carries: ['code', 'message'], open: async (s) => httpStream(base(s), false) },
  { name: 'SSE', kinds: ['server', 'bidi'], kindsNot: ONE_REPLY, server: 'gateway', codec: 'json', carries: ['code', 'message'], open: async (s) => httpStream(base(s), true) },
  // Connect and gRPC-Web over HTTP/1.1: fw's server is full duplex there, so client and bidi streams work (the test sends each body whole).
  { name: 'Connect JSON', kinds: EVERY_KIND, server: 'gateway', codec: 'json', carries: ALL, open: async (s) => connect(base(s), JSON_CODEC, 'json') },
  { name: 'Connect proto', kinds: EVERY_KIND, server: 'gateway', codec: 'proto', carries: ALL, open: async (s) => connect(base(s), PROTO_CODEC, 'proto') },
  { name: 'gRPC-Web JSON', kinds: EVERY_KIND, server: 'gateway', codec: 'json', carries: ALL, open: async (s) => grpcWeb(base(s), JSON_CODEC, 'json') },
  { name: 'gRPC-Web proto', kinds: EVERY_KIND, server: 'gateway', codec: 'proto', carries: ALL, open: async (s) => grpcWeb(base(s), PROTO_CODEC, 'proto') },
  { name: 'gRPC-Web text', kinds: EVERY_KIND, server: 'gateway', codec: 'proto', carries: ALL, open: async (s) => grpcWeb(base(s), PROTO_CODEC, 'text') },
  // Over h2c the gateway's gRPC server takes the connection and hands Connect and gRPC-Web streams to their transport.
  { name: 'Connect proto (h2c)', kinds: EVERY_KIND, server: 'gateway', codec: 'proto', carries: ALL, open: async (s) => connect(base(s), PROTO_CODEC, 'proto', h2cClient(base(s))) },
  { name: 'gRPC-Web proto (h2c)', kinds: EVERY_KIND, server: 'gateway', codec: 'proto', carries: ALL, open: async (s) => grpcWeb(base(s), PROTO_CODEC, 'proto', h2cClient(base(s))) },
  { name: 'gRPC JSON (gateway)', kinds: EVERY_KIND, server: 'gateway', codec: 'json', carries: ALL, clientEnforcesDeadline: true, open: async (s) => grpcJs(s.gatewayPort, JSON_CODEC) },
  { name: 'gRPC proto (gateway)', kinds: EVERY_KIND, server: 'gateway', codec: 'proto', carries: ALL, clientEnforcesDeadline: true, open: async (s) => grpcJs(s.gatewayPort, PROTO_CODEC) },
  { name: 'WebSocket json', kinds: EVERY_KIND, server: 'gateway', codec: 'json', carries: ['code', 'message'], open: (s) => webSocket(base(s), 'json') },
  { name: 'WebSocket msgpack', kinds: EVERY_KIND, server: 'gateway', codec: 'json', carries: ['code', 'message'], open: (s) => webSocket(base(s), 'msgpack') },
  { name: 'WebSocket binary', kinds: EVERY_KIND, server: 'gateway', codec: 'json', carries: ['code', 'message'], open: (s) => webSocketBinary(base(s)) },
  { name: 'TCP', kinds: EVERY_KIND, server: 'gateway', codec: 'json', carries: ['code', 'message'], open: (s) => tcp(s.gatewayPort) },
  {
    name: 'UDP', kinds: ['unary'], server: 'gateway', codec: 'json', carries: ['code', 'message'], cannotCancel: true,
    kindsNot: { server: UDP_ONE_REPLY, client: UDP_ONE_REPLY, bidi: UDP_ONE_REPLY },
    open: async (s) => udp(s.udpPort),
  },
  // server.grpc() names the fw code (x-error-code) only for errors that have one; its status is the contract.
  { name: 'server.grpc() JSON (grpc-js client)', kinds: EVERY_KIND, server: 'grpc-app', codec: 'json', carries: ['grpc', 'message'], open: async (s) => grpcJs(s.grpcPort, JSON_CODEC) },
  { name: 'server.grpc() proto (grpc-js client)', kinds: EVERY_KIND, server: 'grpc-app', codec: 'proto', carries: ['grpc', 'message'], open: async (s) => grpcJs(s.grpcPort, PROTO_CODEC) },
  { name: 'server.grpc() (fw/grpc-client)', kinds: EVERY_KIND, server: 'grpc-app', codec: 'json', carries: ['grpc', 'message'], encodesItself: true, open: async (s) => fwGrpcClient(`${HOST}:${s.grpcPort}`) },
  // The generated client is typed from the descriptor: it has no way to name a method or service the proto lacks.
  { name: 'server.grpc() proto (fw/grpc-client)', kinds: EVERY_KIND, server: 'grpc-app', codec: 'proto', carries: ['grpc', 'message'], namesOnlyKnownMethods: true, encodesItself: true, open: async (s) => fwGrpcProtoClient(`${HOST}:${s.grpcPort}`) },
  { name: 'fw/testing', kinds: EVERY_KIND, server: 'grpc-app', codec: 'json', carries: ['grpc', 'message'], namesOnlyKnownMethods: true, encodesItself: true, inProcess: true, open: async (s) => inProcess(s.grpcApp) },
  { name: 'fw/testing proto', kinds: EVERY_KIND, server: 'grpc-app', codec: 'proto', carries: ['grpc', 'message'], namesOnlyKnownMethods: true, encodesItself: true, inProcess: true, open: async (s) => inProcess(s.grpcApp, true) },
];
