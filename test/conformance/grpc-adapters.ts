/**
 * The conformance adapters speaking gRPC: grpc-js as the client (against the
 * gateway's port or a `server.grpc()` app, JSON or protobuf messages), fw's
 * own client (fw/grpc-client), and fw/testing's in-process client.
 */
import * as grpc from '@grpc/grpc-js';
import { GrpcError, type GrpcApplication } from 'fw/grpc';
import { createGrpcClient } from 'fw/grpc-client';
import { createGrpcTestClient } from 'fw/testing';
import { HOST } from '../gateway/support/clients';
import { sleep, streamItems, TIMEOUT, type CallKind, type Connection, type Outcome, type WireCodec } from './adapter-types';
import { ConformanceProtoDescriptor } from './generated/conformance.fw';

type Mode = 'none' | 'server' | 'client' | 'bidirectional';
const MODES: Record<CallKind, Mode> = { unary: 'none', server: 'server', client: 'client', bidi: 'bidirectional' };

type GenericClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

/** A grpc-js client of one method, its messages encoded by `codec` (MALFORMED becomes bytes the server must refuse). */
function genericClient(port: number, codec: WireCodec, service: string, method: string, kind: CallKind): GenericClient {
  const definition: grpc.ServiceDefinition = {
    [method]: {
      path: `/${codec.service(service)}/${method}`,
      requestStream: kind === 'client' || kind === 'bidi',
      responseStream: kind === 'server' || kind === 'bidi',
      requestSerialize: (v: unknown) => codec.encode(method, v),
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
      responseDeserialize: (b: Buffer) => codec.decode(method, b),
    },
  };
  const Ctor = grpc.makeGenericClientConstructor(definition, service);
  return new Ctor(`${HOST}:${port}`, grpc.credentials.createInsecure()) as unknown as GenericClient;
}

type AnyCall = grpc.ClientUnaryCall & grpc.ClientWritableStream<unknown> & grpc.ClientReadableStream<unknown>;

/** Starts a call of any kind; a client stream gets its items, and its end unless `leaveOpen`. */
function startCall(client: GenericClient, method: string, kind: CallKind, input: unknown, options: grpc.CallOptions, onReply: (e: grpc.ServiceError | null, value?: unknown) => void, leaveOpen = false): AnyCall {
  const fn = (...args: unknown[]): AnyCall => (client[method] as (...a: unknown[]) => AnyCall).apply(client, args);
  const metadata = new grpc.Metadata();
  let call: AnyCall;
  if (kind === 'unary') call = fn(input, metadata, options, onReply);
  else if (kind === 'server') call = fn(input, metadata, options);
  else if (kind === 'client') call = fn(metadata, options, onReply);
  else call = fn(metadata, options);
  if (kind === 'client' || kind === 'bidi') {
    for (const item of streamItems(input)) call.write(item);
    if (!leaveOpen) call.end();
  }
  return call;
}

/** gRPC over HTTP/2 with grpc-js as the client. */
export function grpcJs(port: number, codec: WireCodec): Connection {
  // One client per method and kind, kept: a call then never waits for a channel to connect (deadline rows on a loaded machine).
  const clients = new Map<string, GenericClient>();
  const clientOf = (service: string, method: string, kind: CallKind): GenericClient => {
    const key = `${service}/${method}/${kind}`;
    const known = clients.get(key);
    if (known !== undefined) return known;
    const client = genericClient(port, codec, service, method, kind);
    clients.set(key, client);
    return client;
  };
  return {
    call(service, method, kind, input, timeoutMs) {
      const client = clientOf(service, method, kind);
      const items: unknown[] = [];
      const failed = (e: grpc.ServiceError): Outcome => ({
        items,
        error: { code: e.metadata?.get('x-error-code')[0] as string | undefined, grpc: e.code, message: e.details },
      });
      return new Promise<Outcome>((resolve) => {
        const deadline = new Date(Date.now() + (timeoutMs ?? TIMEOUT));
        const onReply = (e: grpc.ServiceError | null, value?: unknown): void => resolve(e === null ? { items: [value] } : failed(e));
        const call = startCall(client, method, kind, input, { deadline }, onReply);
        if (kind === 'unary' || kind === 'client') return;
        call.on('data', (item: unknown) => items.push(item));
        call.on('error', (e: grpc.ServiceError) => resolve(failed(e)));
        call.on('end', () => resolve({ items }));
      });
    },
    async cancel(service, method, kind, input, afterMs) {
      const client = clientOf(service, method, kind);
      const call = startCall(client, method, kind, input, {}, () => undefined, true);
      call.on('error', () => undefined);
      call.on('data', () => undefined);
      await sleep(afterMs);
      call.cancel();
    },
    close: () => {
      for (const c of clients.values()) c.close();
      clients.clear();
    },
  };
}

function grpcErrorOutcome(items: unknown[], e: unknown): Outcome {
  if (!(e instanceof GrpcError)) throw e;
  const code = e.metadata['x-error-code'];
  return { items, error: { code: typeof code === 'string' ? code : undefined, grpc: e.code, message: e.message } };
}

type ClientMethod = (requestOrStream: unknown, options: object) => unknown;

/** Calls a typed client method of any kind and gathers its items. */
async function gather(fn: ClientMethod, kind: CallKind, input: unknown, options: object): Promise<Outcome> {
  const items: unknown[] = [];
  try {
    const request = kind === 'client' || kind === 'bidi' ? streamItems(input) : input;
    if (kind === 'unary' || kind === 'client') items.push(await (fn(request, options) as Promise<unknown>));
    else for await (const item of fn(request, options) as AsyncIterable<unknown>) items.push(item);
    return { items };
  } catch (e) {
    return grpcErrorOutcome(items, e);
  }
}

/** Client-stream items that never end: the call stays open until it is cancelled. */
async function* unending(items: unknown[], signal: AbortSignal): AsyncGenerator<unknown> {
  yield* items;
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Calls `fn` with an AbortSignal aborted after `afterMs`, and waits for the call to end (it fails CANCELLED). */
async function cancelled(fn: ClientMethod, kind: CallKind, input: unknown, afterMs: number): Promise<void> {
  const controller = new AbortController();
  const request = kind === 'client' || kind === 'bidi' ? unending(streamItems(input), controller.signal) : input;
  const running = (async () => {
    if (kind === 'unary' || kind === 'client') await (fn(request, { signal: controller.signal }) as Promise<unknown>);
    else for await (const item of fn(request, { signal: controller.signal }) as AsyncIterable<unknown>) void item;
  })().catch(() => undefined);
  await sleep(afterMs);
  controller.abort();
  await running;
}

/** fw's own gRPC client (fw/grpc-client) against a `server.grpc()` app, the inline JSON service. */
export function fwGrpcClient(address: string): Connection {
  const clients: { close(): void }[] = [];
  const methodOf = (service: string, method: string, kind: CallKind): ClientMethod => {
    const client = createGrpcClient<Record<string, ClientMethod> & { close(): void }>({ address, service: { name: service, methods: { [method]: MODES[kind] } } });
    clients.push(client);
    return client[method.charAt(0).toLowerCase() + method.slice(1)] as ClientMethod;
  };
  return {
    call: (service, method, kind, input, timeoutMs) => gather(methodOf(service, method, kind), kind, input, { deadline: timeoutMs ?? TIMEOUT }),
    cancel: (service, method, kind, input, afterMs) => cancelled(methodOf(service, method, kind), kind, input, afterMs),
    close: () => { for (const c of clients.splice(0)) c.close(); },
  };
}

/** fw/grpc-client's client of the generated service (protobuf on the wire), camelCase methods. */
export function fwGrpcProtoClient(address: string): Connection {
  const client = createGrpcClient<Record<string, ClientMethod> & { close(): void }>({ address, service: ConformanceProtoDescriptor } as never);
  const methodOf = (method: string): ClientMethod => client[method.charAt(0).toLowerCase() + method.slice(1)] as ClientMethod;
  return {
    call: (_service, method, kind, input, timeoutMs) => gather(methodOf(method), kind, input, { deadline: timeoutMs ?? TIMEOUT }),
    cancel: (_service, method, kind, input, afterMs) => cancelled(methodOf(method), kind, input, afterMs),
    close: () => client.close(),
  };
}

/** fw/testing's in-process client over the same `server.grpc()` app: no socket. `proto`: the generated service's typed client. */
export function inProcess(app: GrpcApplication, proto = false): Connection {
  const methodOf = (service: string, method: string): ClientMethod =>
    (proto ? (createGrpcTestClient(ConformanceProtoDescriptor, { app }) as unknown as Record<string, ClientMethod>) : createGrpcTestClient<Record<string, ClientMethod>>(service, { app }))[method] as ClientMethod;
  return {
    call: (service, method, kind, input, timeoutMs) => gather(methodOf(service, method), kind, input, timeoutMs === undefined ? {} : { deadline: timeoutMs }),
    cancel: (service, method, kind, input, afterMs) => cancelled(methodOf(service, method), kind, input, afterMs),
    close: () => undefined,
  };
}
