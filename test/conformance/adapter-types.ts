/**
 * What every conformance adapter shares: the outcome shape a call reports,
 * what an adapter declares about its protocol, the servers it reaches, and
 * the message codec of its wire form (JSON text or protobuf binary).
 */
import type { GrpcApplication } from 'fw/grpc';
import { ConformanceProtoDescriptor } from './generated/conformance.fw';

/** The call kinds of the table (bidi: bidirectional streaming). */
export type CallKind = 'unary' | 'server' | 'client' | 'bidi';

/** Input an adapter sends as bytes its protocol's decoder must refuse (JSON that does not parse, protobuf that does not decode). */
export const MALFORMED: unique symbol = Symbol('malformed input');

/** The service every adapter calls, by its inline name. */
export const SERVICE = 'Conformance';

// Long enough that a UDP error reply fits in its size (a shorter datagram gets no reply: no amplification).
export const BAD_JSON = `{"text": ${' '.repeat(160)}`;

/** Field 1 with wire type 7, which no protobuf decoder accepts. */
const BAD_PROTO = Buffer.from([0x0f, 0x0f, 0x0f, 0x0f]);

/** `input` as JSON text, or text that is not JSON for MALFORMED. */
export const jsonText = (input: unknown): string => (input === MALFORMED ? BAD_JSON : JSON.stringify(input));

/** What a call gave: the items before the end, and how it ended. */
export interface Outcome {
  items: unknown[];
  error?: { code?: string; grpc?: number; http?: number; message?: string };
}

export type Carried = 'code' | 'grpc' | 'http' | 'message';

/** What an adapter is, known before any server starts (the test table is built from it). */
export interface AdapterSpec {
  readonly name: string;
  /** The wire form's name, the same for that form at every address (the hosted rows); default `name`. Cases name forms (`codeOn`, `onlyOver`). */
  readonly form?: string;
  /** The call kinds the protocol offers. */
  readonly kinds: readonly CallKind[];
  /** Why a call kind the service has is not run over this adapter, by kind. */
  readonly kindsNot?: Readonly<Partial<Record<CallKind, string>>>;
  /** Which server it reaches: the gateway on its own port, the gateway hosted on an fw app's port, or a `server.grpc()` app (on fw's engine, or on `engine: 'grpc-js'`). */
  readonly server: 'gateway' | 'hosted' | 'grpc-app' | 'grpc-js-app';
  /** The message encoding: the inline JSON service, or the generated protobuf one. */
  readonly codec: 'json' | 'proto';
  /** The error fields the protocol carries, checked against the case. */
  readonly carries: readonly Carried[];
  /** The adapter has no way to name an unknown service or method (a client typed from the service). */
  readonly namesOnlyKnownMethods?: boolean;
  /** The protocol has no way to cancel one call (UDP: a datagram is gone once sent). */
  readonly cannotCancel?: boolean;
  /** The client encodes every request itself: it cannot send malformed bytes. */
  readonly encodesItself?: boolean;
  /** The client raises DEADLINE_EXCEEDED itself when the deadline passes (grpc-js): no server trailers to read then. */
  readonly clientEnforcesDeadline?: boolean;
  /** The adapter reaches its server without a socket (fw/testing): closing the server does not reach its calls. */
  readonly inProcess?: boolean;
}

/** A gateway's address: its TCP port (HTTP, WebSocket, gRPC, TCP frames) and its UDP port. */
export interface GatewayPorts {
  readonly port: number;
  readonly udpPort: number;
}

/** Where the adapters connect. */
export interface Servers {
  /** The gateway on its own port (`gateway.listen()`). */
  readonly gateway: GatewayPorts;
  /** A gateway hosted on an fw app's port (`app.withOptions({…gateway.get*Config()})`). */
  readonly hosted: GatewayPorts;
  readonly grpcApp: GrpcApplication;
  readonly grpcPort: number;
  /** The same `server.grpc()` app on the grpc-js engine (`grpc: {engine: 'grpc-js'}`). */
  readonly grpcJsPort: number;
}

/** The wire form an adapter speaks, whatever address it talks to. */
export const formOf = (a: AdapterSpec): string => a.form ?? a.name;

/** True when the adapter reaches a gateway (its own port or hosted), where gateway-only features apply. */
export const reachesGateway = (a: AdapterSpec): boolean => a.server === 'gateway' || a.server === 'hosted';

/** An open adapter: how it calls, and how it lets go of its connection. */
export interface Connection {
  /**
   * `input` is the request, or for client and bidi streams the list of
   * items sent. `timeoutMs`: the call's deadline, sent the way the protocol carries one.
   */
  call(service: string, method: string, kind: CallKind, input: unknown, timeoutMs?: number): Promise<Outcome>;
  /** Starts the call (a client stream: its items, without the end) and cancels it, the protocol's way, after `afterMs`. */
  cancel(service: string, method: string, kind: CallKind, input: unknown, afterMs: number): Promise<void>;
  close(): void;
}

/** An adapter: what it is, and how to open it against the servers. */
export interface Adapter extends AdapterSpec {
  open(servers: Servers): Promise<Connection>;
}

/** How one wire form names the service and encodes its messages. */
export interface WireCodec {
  /** The service name on the wire. */
  service(service: string): string;
  /** A request message (a client stream: one item) as bytes. */
  encode(method: string, input: unknown): Buffer;
  /** A reply message from its bytes. */
  decode(method: string, bytes: Buffer): unknown;
}

/** JSON text, the inline service. */
export const JSON_CODEC: WireCodec = {
  service: (service) => service,
  encode: (_method, input) => Buffer.from(jsonText(input)),
  decode: (_method, bytes) => JSON.parse(bytes.toString('utf8')) as unknown,
};

const protoMethod = (method: string): (typeof ConformanceProtoDescriptor.methods)[keyof typeof ConformanceProtoDescriptor.methods] | undefined =>
  (ConformanceProtoDescriptor.methods as Record<string, (typeof ConformanceProtoDescriptor.methods)[keyof typeof ConformanceProtoDescriptor.methods]>)[method];

/** Protobuf binary, the generated service (fw-gen output of fixtures/conformance.proto). */
export const PROTO_CODEC: WireCodec = {
  service: (service) => (service === SERVICE ? ConformanceProtoDescriptor.typeName : service),
  encode: (method, input) => {
    if (input === MALFORMED) return BAD_PROTO;
    const codec = protoMethod(method)?.requestCodec as { encode(m: unknown): Uint8Array } | undefined;
    // A method the service lacks (the unknown-method case) gets an empty message.
    return Buffer.from(codec === undefined ? new Uint8Array() : codec.encode(input));
  },
  decode: (method, bytes) => {
    const codec = protoMethod(method)?.responseCodec as { decode(b: Uint8Array): unknown } | undefined;
    return codec === undefined ? {} : codec.decode(bytes);
  },
};

export const codecOf = (codec: 'json' | 'proto'): WireCodec => (codec === 'json' ? JSON_CODEC : PROTO_CODEC);

export const TIMEOUT = 5000;

let seq = 0;
/** A fresh call id for envelope and frame protocols. */
export const nextId = (): string => `c${++seq}`;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The items a client or bidi stream sends. */
export const streamItems = (input: unknown): unknown[] => (Array.isArray(input) ? input : [input]);

export type Json = Record<string, unknown>;
