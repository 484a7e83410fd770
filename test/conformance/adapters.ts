/**
 * One adapter per wire form the conformance cases run over: each makes a
 * call the way a real client of that protocol does and reports the outcome
 * in one shape, filling only what its protocol carries (`carries`).
 */
import * as grpc from '@grpc/grpc-js';
import { decode as msgpackDecode, encode as msgpackEncode } from '@msgpack/msgpack';
import { encodeFrame, FrameType } from 'fw';
import { GrpcError, type GrpcApplication } from 'fw/grpc';
import { createGrpcClient } from 'fw/grpc-client';
import { createGrpcTestClient } from 'fw/testing';
import { grpcJsonClient, HOST, TcpFrameClient, udpCall, WsClient } from '../gateway/support/clients';
import { envelope, envelopes as readEnvelopes } from '../support/envelopes';
import type { CallKind } from './case-table';

/** Input an adapter sends as bytes its protocol's decoder must refuse (JSON that does not parse, MessagePack that does not decode). */
export const MALFORMED: unique symbol = Symbol('malformed input');

// Long enough that a UDP error reply fits in its size (a shorter datagram gets no reply: no amplification).
const BAD_JSON = `{"text": ${' '.repeat(160)}`;

/** `input` as JSON text, or text that is not JSON for MALFORMED. */
const jsonText = (input: unknown): string => (input === MALFORMED ? BAD_JSON : JSON.stringify(input));

/** What a call gave: the items before the end, and how it ended. */
export interface Outcome {
  items: unknown[];
  error?: { code?: string; grpc?: number; http?: number; message?: string };
}

export type Carried = 'code' | 'grpc' | 'http' | 'message';

/** What an adapter is, known before any server starts (the test table is built from it). */
export interface AdapterSpec {
  readonly name: string;
  /** The call kinds the protocol offers. */
  readonly kinds: readonly CallKind[];
  /** Which server it reaches: the gateway, or a `server.grpc()` app. */
  readonly server: 'gateway' | 'grpc-app';
  /** The error fields the protocol carries, checked against the case. */
  readonly carries: readonly Carried[];
  /** The adapter has no way to name an unknown service or method (a typed in-process client). */
  readonly namesOnlyKnownMethods?: boolean;
  /** The protocol has no way to cancel one call (UDP: a datagram is gone once sent). */
  readonly cannotCancel?: boolean;
  /** The client encodes every request itself: it cannot send malformed bytes. */
  readonly encodesItself?: boolean;
  /** The client raises DEADLINE_EXCEEDED itself when the deadline passes (grpc-js): no server trailers to read then. */
  readonly clientEnforcesDeadline?: boolean;
}

/** Where the adapters connect. */
export interface Servers {
  readonly gatewayPort: number;
  readonly udpPort: number;
  readonly grpcApp: GrpcApplication;
  readonly grpcPort: number;
}

/** An open adapter: how it calls, and how it lets go of its connection. */
export interface Connection {
  /** `timeoutMs`: the call's deadline, sent the way the protocol carries one. */
  call(service: string, method: string, kind: CallKind, input: unknown, timeoutMs?: number): Promise<Outcome>;
  /** Starts the call and cancels it, the protocol's way, once its first reply (or `afterMs`) has come. */
  cancel(service: string, method: string, kind: CallKind, input: unknown, afterMs: number): Promise<void>;
  close(): void;
}

const TIMEOUT = 5000;

let seq = 0;
const nextId = (): string => `c${++seq}`;

const CONNECT_CODES = [
  'ok', 'canceled', 'unknown', 'invalid_argument', 'deadline_exceeded', 'not_found', 'already_exists', 'permission_denied',
  'resource_exhausted', 'failed_precondition', 'aborted', 'out_of_range', 'unimplemented', 'internal', 'unavailable', 'data_loss', 'unauthenticated',
];

function envelopes(body: Buffer): { flags: number; data: Buffer }[] {
  return readEnvelopes(body).list;
}

/** The `grpc-timeout` header for a deadline, in milliseconds. */
const grpcTimeout = (timeoutMs: number | undefined): Record<string, string> => (timeoutMs === undefined ? {} : { 'grpc-timeout': `${timeoutMs}m` });

const post = (url: string, headers: Record<string, string>, body: string | Buffer): Promise<Response> =>
  fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body), signal: AbortSignal.timeout(TIMEOUT) });

type Json = Record<string, unknown>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A fetch the client aborts after `afterMs`: the server sees its connection or stream go away. */
async function abortedFetch(url: string, headers: Record<string, string>, body: string | Buffer, afterMs: number): Promise<void> {
  const controller = new AbortController();
  const request = fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body), signal: controller.signal })
    .then((res) => res.arrayBuffer())
    .catch(() => undefined);
  await sleep(afterMs);
  controller.abort();
  await request;
}

/** HTTP/JSON: the default binding `POST /api/<Service>/<method>`. */
function httpJson(base: string): Connection {
  return {
    async call(service, method, _kind, input, timeoutMs) {
      const res = await post(`${base}/api/${service}/${method}`, { 'content-type': 'application/json', ...grpcTimeout(timeoutMs) }, jsonText(input));
      const body = (await res.json()) as Json;
      if (res.ok) return { items: [body.data] };
      return { items: [], error: { code: body.error as string, http: res.status, message: body.message as string } };
    },
    cancel: (service, method, _kind, input, afterMs) => abortedFetch(`${base}/api/${service}/${method}`, { 'content-type': 'application/json' }, JSON.stringify(input), afterMs),
    close: () => undefined,
  };
}

/** NDJSON (`{"data":…}` lines, an error line last) or SSE (`data:` events, `event: error`). */
function httpStream(base: string, sse: boolean): Connection {
  return {
    async call(service, method, _kind, input, timeoutMs) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...grpcTimeout(timeoutMs) };
      if (sse) headers.accept = 'text/event-stream';
      const res = await post(`${base}/api/${service}/${method}`, headers, jsonText(input));
      const text = await res.text();
      if (res.status !== 200) {
        const body = JSON.parse(text) as Json;
        return { items: [], error: { code: body.error as string, message: body.message as string } };
      }
      const items: unknown[] = [];
      let error: Outcome['error'];
      if (sse) {
        for (const event of text.split('\n\n').filter((e) => e !== '')) {
          const name = /^event: (\w+)$/m.exec(event)?.[1];
          const data = JSON.parse(/^data: (.*)$/m.exec(event)?.[1] ?? 'null') as Json;
          if (name === undefined) items.push(data);
          else if (name === 'error') error = { code: data.error as string, message: data.message as string };
        }
      } else {
        for (const line of text.split('\n').filter((l) => l !== '')) {
          const parsed = JSON.parse(line) as Json;
          if ('data' in parsed) items.push(parsed.data);
          else error = { code: parsed.error as string, message: parsed.message as string };
        }
      }
      return error === undefined ? { items } : { items, error };
    },
    cancel: (service, method, _kind, input, afterMs) =>
      abortedFetch(`${base}/api/${service}/${method}`, sse ? { 'content-type': 'application/json', accept: 'text/event-stream' } : { 'content-type': 'application/json' }, JSON.stringify(input), afterMs),
    close: () => undefined,
  };
}

/** Connect with the JSON codec: unary `application/json`, streams `application/connect+json`. */
function connectJson(base: string): Connection {
  return {
    async call(service, method, kind, input, timeoutMs) {
      const timeout: Record<string, string> = timeoutMs === undefined ? {} : { 'connect-timeout-ms': String(timeoutMs) };
      if (kind === 'unary') {
        const res = await post(`${base}/${service}/${method}`, { 'content-type': 'application/json', 'connect-protocol-version': '1', ...timeout }, jsonText(input));
        const body = (await res.json()) as Json;
        if (res.ok) return { items: [body] };
        return { items: [], error: { code: res.headers.get('x-error-code') ?? undefined, grpc: CONNECT_CODES.indexOf(body.code as string), message: body.message as string } };
      }
      const res = await post(`${base}/${service}/${method}`, { 'content-type': 'application/connect+json', ...timeout }, envelope(0, Buffer.from(jsonText(input))));
      const frames = envelopes(Buffer.from(await res.arrayBuffer()));
      const items = frames.filter((f) => (f.flags & 2) === 0).map((f) => JSON.parse(f.data.toString()) as unknown);
      const end = JSON.parse(frames.find((f) => (f.flags & 2) !== 0)?.data.toString() ?? '{}') as { error?: Json; metadata?: Record<string, string[]> };
      if (end.error === undefined) return { items };
      return { items, error: { code: end.metadata?.['x-error-code']?.[0], grpc: CONNECT_CODES.indexOf(end.error.code as string), message: end.error.message as string } };
    },
    cancel: (service, method, kind, input, afterMs) =>
      kind === 'unary'
        ? abortedFetch(`${base}/${service}/${method}`, { 'content-type': 'application/json', 'connect-protocol-version': '1' }, JSON.stringify(input), afterMs)
        : abortedFetch(`${base}/${service}/${method}`, { 'content-type': 'application/connect+json' }, envelope(0, Buffer.from(JSON.stringify(input))), afterMs),
    close: () => undefined,
  };
}

/** gRPC-Web with the JSON codec: enveloped messages, a trailers frame (or trailers-only headers). */
function grpcWeb(base: string): Connection {
  return {
    async call(service, method, _kind, input, timeoutMs) {
      const res = await post(`${base}/${service}/${method}`, { 'content-type': 'application/grpc-web+json', 'x-grpc-web': '1', ...grpcTimeout(timeoutMs) }, envelope(0, Buffer.from(jsonText(input))));
      const frames = envelopes(Buffer.from(await res.arrayBuffer()));
      const items = frames.filter((f) => (f.flags & 0x80) === 0).map((f) => JSON.parse(f.data.toString()) as unknown);
      const trailers = new Map<string, string>();
      res.headers.forEach((v, k) => trailers.set(k, v));
      const block = frames.find((f) => (f.flags & 0x80) !== 0)?.data.toString() ?? '';
      for (const line of block.split('\r\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      const status = Number(trailers.get('grpc-status') ?? '0');
      if (status === 0) return { items };
      return { items, error: { code: trailers.get('x-error-code'), grpc: status, message: decodeURIComponent(trailers.get('grpc-message') ?? '') } };
    },
    cancel: (service, method, _kind, input, afterMs) =>
      abortedFetch(`${base}/${service}/${method}`, { 'content-type': 'application/grpc-web+json', 'x-grpc-web': '1' }, envelope(0, Buffer.from(JSON.stringify(input))), afterMs),
    close: () => undefined,
  };
}

/** A grpc-js client whose one method sends BAD_JSON whatever it is given. */
function malformedGrpcClient(port: number, service: string, method: string, kind: CallKind): grpc.Client & Record<string, (...args: unknown[]) => unknown> {
  const definition: grpc.ServiceDefinition = {
    [method]: {
      path: `/${service}/${method}`,
      requestStream: false,
      responseStream: kind === 'server',
      requestSerialize: () => Buffer.from(BAD_JSON),
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
      responseDeserialize: (b: Buffer) => JSON.parse(b.toString('utf8')) as unknown,
    },
  };
  const Ctor = grpc.makeGenericClientConstructor(definition, service);
  return new Ctor(`${HOST}:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<string, (...args: unknown[]) => unknown>;
}

/** gRPC over HTTP/2 with grpc-js as the client, JSON messages. */
function grpcJs(port: number): Connection {
  const clients: grpc.Client[] = [];
  return {
    async call(service, method, kind, input, timeoutMs) {
      const client = input === MALFORMED ? malformedGrpcClient(port, service, method, kind) : grpcJsonClient(port, service, { [method]: kind === 'unary' ? 'none' : 'server' });
      clients.push(client);
      const items: unknown[] = [];
      const failed = (e: grpc.ServiceError): Outcome => ({
        items,
        error: { code: e.metadata?.get('x-error-code')[0] as string | undefined, grpc: e.code, message: e.details },
      });
      return new Promise<Outcome>((resolve) => {
        const deadline = new Date(Date.now() + (timeoutMs ?? TIMEOUT));
        if (kind === 'unary') {
          (client[method] as (...a: unknown[]) => unknown)(input, new grpc.Metadata(), { deadline }, (e: grpc.ServiceError | null, value: unknown) => resolve(e === null ? { items: [value] } : failed(e)));
          return;
        }
        const stream = (client[method] as (...a: unknown[]) => NodeJS.EventEmitter)(input, new grpc.Metadata(), { deadline });
        stream.on('data', (item: unknown) => items.push(item));
        stream.on('error', (e: grpc.ServiceError) => resolve(failed(e)));
        stream.on('end', () => resolve({ items }));
      });
    },
    async cancel(service, method, kind, input, afterMs) {
      const client = grpcJsonClient(port, service, { [method]: kind === 'unary' ? 'none' : 'server' });
      clients.push(client);
      const call = (kind === 'unary'
        ? (client[method] as (...a: unknown[]) => grpc.ClientUnaryCall)(input, new grpc.Metadata(), () => undefined)
        : (client[method] as (...a: unknown[]) => grpc.ClientReadableStream<unknown>)(input, new grpc.Metadata())) as grpc.ClientUnaryCall & NodeJS.EventEmitter;
      call.on('error', () => undefined);
      call.on('data', () => undefined);
      await sleep(afterMs);
      call.cancel();
    },
    close: () => { for (const c of clients.splice(0)) c.close(); },
  };
}

/** WebSocket envelopes (`{id, service, method, data}`), JSON text or MessagePack. */
async function webSocket(base: string, format: 'json' | 'msgpack'): Promise<Connection> {
  const client = await WsClient.connect(`${base.replace('http', 'ws')}/ws`, format === 'json' ? {} : { protocol: 'fw.msgpack', decode: (d) => msgpackDecode(d) });
  return {
    async call(service, method, _kind, input, timeoutMs) {
      const id = nextId();
      const message = timeoutMs === undefined ? { id, service, method, data: input } : { id, service, method, data: input, timeout: timeoutMs };
      if (input === MALFORMED) client.send(format === 'json' ? BAD_JSON : Buffer.from([0xc1]));
      else client.send(format === 'json' ? JSON.stringify(message) : Buffer.from(msgpackEncode(message)));
      // A message that does not decode has no id to answer under.
      const mine = (ms: unknown[]): Json[] => (ms as Json[]).filter((m) => m.id === (input === MALFORMED ? undefined : id));
      const all = mine(await client.until((ms) => mine(ms).some((m) => m.type === 'response' || m.type === 'error' || m.type === 'stream_end'), TIMEOUT));
      const items = all.filter((m) => m.type === 'response' || m.type === 'stream').map((m) => m.data);
      const error = all.find((m) => m.type === 'error')?.error as Json | undefined;
      return error === undefined ? { items } : { items, error: { code: error.code as string, message: error.message as string } };
    },
    async cancel(service, method, _kind, input, afterMs) {
      const id = nextId();
      const message = { id, service, method, data: input };
      const type = { id, type: 'cancel' };
      client.send(format === 'json' ? JSON.stringify(message) : Buffer.from(msgpackEncode(message)));
      await sleep(afterMs);
      client.send(format === 'json' ? JSON.stringify(type) : Buffer.from(msgpackEncode(type)));
    },
    close: () => client.close(),
  };
}

/** A frame (version 1, type, u32 length) around `payload` as given: no JSON encoding. */
function rawFrame(type: number, payload: string): Buffer {
  const body = Buffer.from(payload);
  const header = Buffer.alloc(6);
  header[0] = 1;
  header[1] = type;
  header.writeUInt32BE(body.length, 2);
  return Buffer.concat([header, body]);
}

function frameOutcome(frames: { type: number; payload: Json }[]): Outcome {
  const items = frames.filter((f) => f.type === FrameType.Response || f.type === FrameType.StreamItem).map((f) => f.payload.data);
  const error = frames.find((f) => f.type === FrameType.Error)?.payload.error as Json | undefined;
  return error === undefined ? { items } : { items, error: { code: error.code as string, message: error.message as string } };
}

/** TCP: length-prefixed frames, one connection for every call. */
async function tcp(port: number): Promise<Connection> {
  const client = await TcpFrameClient.connect(port);
  return {
    async call(service, method, _kind, input, timeoutMs) {
      if (input !== MALFORMED) return frameOutcome(await client.call(nextId(), service, method, input, { timeout: timeoutMs }));
      client.raw(rawFrame(FrameType.Request, BAD_JSON));
      const before = client.frames.length;
      return frameOutcome((await client.until((fs) => fs.length > before, TIMEOUT)).slice(before));
    },
    async cancel(service, method, _kind, input, afterMs) {
      const id = nextId();
      client.send(FrameType.Request, { id, service, method, data: input });
      await sleep(afterMs);
      client.send(FrameType.Cancel, { id });
    },
    close: () => client.close(),
  };
}

/** UDP: one request datagram, one reply datagram; unary only. */
function udp(port: number): Connection {
  return {
    call: async (service, method, _kind, input, timeoutMs) =>
      frameOutcome([await udpCall(port, input === MALFORMED ? rawFrame(FrameType.Request, BAD_JSON) : encodeFrame(FrameType.Request, { id: nextId(), service, method, data: input, timeout: timeoutMs }), TIMEOUT)]),
    cancel: () => Promise.reject(new Error('UDP has no cancel')),
    close: () => undefined,
  };
}

function grpcErrorOutcome(items: unknown[], e: unknown): Outcome {
  if (!(e instanceof GrpcError)) throw e;
  const code = e.metadata['x-error-code'];
  return { items, error: { code: typeof code === 'string' ? code : undefined, grpc: e.code, message: e.message } };
}

/** fw's own gRPC client (fw/grpc-client) against a `server.grpc()` app. */
function fwGrpcClient(address: string): Connection {
  const clients: { close(): void }[] = [];
  return {
    async call(service, method, kind, input, timeoutMs) {
      const client = createGrpcClient<Record<string, (r: unknown) => unknown> & { close(): void }>({ address, service: { name: service, methods: { [method]: kind === 'unary' ? 'none' : 'server' } } });
      clients.push(client);
      const local = method.charAt(0).toLowerCase() + method.slice(1);
      const items: unknown[] = [];
      try {
        const options = { deadline: timeoutMs ?? TIMEOUT };
        if (kind === 'unary') items.push(await (client[local] as (r: unknown, o: object) => Promise<unknown>)(input, options));
        else for await (const item of (client[local] as (r: unknown, o: object) => AsyncIterable<unknown>)(input, options)) items.push(item);
        return { items };
      } catch (e) {
        return grpcErrorOutcome(items, e);
      }
    },
    async cancel(service, method, kind, input, afterMs) {
      const client = createGrpcClient<Record<string, (r: unknown, o: object) => unknown> & { close(): void }>({ address, service: { name: service, methods: { [method]: kind === 'unary' ? 'none' : 'server' } } });
      clients.push(client);
      await cancelled(client[method.charAt(0).toLowerCase() + method.slice(1)] as (r: unknown, o: object) => unknown, kind, input, afterMs);
    },
    close: () => { for (const c of clients.splice(0)) c.close(); },
  };
}

/** Calls `fn` with an AbortSignal aborted after `afterMs`, and waits for the call to end (it fails CANCELLED). */
async function cancelled(fn: (r: unknown, o: object) => unknown, kind: CallKind, input: unknown, afterMs: number): Promise<void> {
  const controller = new AbortController();
  const running = (async () => {
    if (kind === 'unary') await (fn(input, { signal: controller.signal }) as Promise<unknown>);
    else for await (const item of fn(input, { signal: controller.signal }) as AsyncIterable<unknown>) void item;
  })().catch(() => undefined);
  await sleep(afterMs);
  controller.abort();
  await running;
}

/** fw/testing's in-process client over the same `server.grpc()` app: no socket. */
function inProcess(app: GrpcApplication): Connection {
  return {
    async call(service, method, kind, input, timeoutMs) {
      const client = createGrpcTestClient<Record<string, (r: unknown, o: object) => unknown>>(service, { app });
      const options = timeoutMs === undefined ? {} : { deadline: timeoutMs };
      const items: unknown[] = [];
      try {
        if (kind === 'unary') items.push(await (client[method] as (r: unknown, o: object) => Promise<unknown>)(input, options));
        else for await (const item of (client[method] as (r: unknown, o: object) => AsyncIterable<unknown>)(input, options)) items.push(item);
        return { items };
      } catch (e) {
        return grpcErrorOutcome(items, e);
      }
    },
    async cancel(service, method, kind, input, afterMs) {
      const client = createGrpcTestClient<Record<string, (r: unknown, o: object) => unknown>>(service, { app });
      await cancelled(client[method] as (r: unknown, o: object) => unknown, kind, input, afterMs);
    },
    close: () => undefined,
  };
}

/** An adapter: what it is, and how to open it against the servers. */
export interface Adapter extends AdapterSpec {
  open(servers: Servers): Promise<Connection>;
}

const base = (s: Servers): string => `http://${HOST}:${s.gatewayPort}`;
const ALL: readonly Carried[] = ['code', 'grpc', 'message'];

/** Every adapter: the gateway's wire forms, then server.grpc()'s clients. */
export const ADAPTERS: readonly Adapter[] = [
  { name: 'HTTP/JSON', kinds: ['unary'], server: 'gateway', carries: ['code', 'http', 'message'], open: async (s) => httpJson(base(s)) },
  { name: 'NDJSON', kinds: ['server'], server: 'gateway', carries: ['code', 'message'], open: async (s) => httpStream(base(s), false) },
  { name: 'SSE', kinds: ['server'], server: 'gateway', carries: ['code', 'message'], open: async (s) => httpStream(base(s), true) },
  { name: 'Connect JSON', kinds: ['unary', 'server'], server: 'gateway', carries: ALL, open: async (s) => connectJson(base(s)) },
  { name: 'gRPC-Web', kinds: ['unary', 'server'], server: 'gateway', carries: ALL, open: async (s) => grpcWeb(base(s)) },
  { name: 'gRPC (gateway)', kinds: ['unary', 'server'], server: 'gateway', carries: ALL, clientEnforcesDeadline: true, open: async (s) => grpcJs(s.gatewayPort) },
  { name: 'WebSocket json', kinds: ['unary', 'server'], server: 'gateway', carries: ['code', 'message'], open: (s) => webSocket(base(s), 'json') },
  { name: 'WebSocket msgpack', kinds: ['unary', 'server'], server: 'gateway', carries: ['code', 'message'], open: (s) => webSocket(base(s), 'msgpack') },
  { name: 'TCP', kinds: ['unary', 'server'], server: 'gateway', carries: ['code', 'message'], open: (s) => tcp(s.gatewayPort) },
  { name: 'UDP', kinds: ['unary'], server: 'gateway', carries: ['code', 'message'], cannotCancel: true, open: async (s) => udp(s.udpPort) },
  // server.grpc() names the fw code (x-error-code) only for errors that have one; its status is the contract.
  { name: 'server.grpc() (grpc-js client)', kinds: ['unary', 'server'], server: 'grpc-app', carries: ['grpc', 'message'], open: async (s) => grpcJs(s.grpcPort) },
  { name: 'server.grpc() (fw/grpc-client)', kinds: ['unary', 'server'], server: 'grpc-app', carries: ['grpc', 'message'], encodesItself: true, open: async (s) => fwGrpcClient(`${HOST}:${s.grpcPort}`) },
  { name: 'fw/testing', kinds: ['unary', 'server'], server: 'grpc-app', carries: ['grpc', 'message'], namesOnlyKnownMethods: true, encodesItself: true, open: async (s) => inProcess(s.grpcApp) },
];

