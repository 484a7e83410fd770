/**
 * Typed calls of the four kinds over any transport, and `createClient`,
 * which the generated `create<Service>BrowserClient` wraps. Requests are
 * encoded to proto3 JSON here and responses decoded, so transports only
 * move JSON.
 */
import type { Method } from './method';
import { RpcError } from './rpc-error';
import type { CallOptions, Transport } from './transport';

async function* encodeEach<I>(method: Method<I, unknown>, requests: AsyncIterable<I>): AsyncGenerator<unknown> {
  for await (const request of requests) yield method.encode(request);
}

async function single<O>(method: Method<never, O>, replies: AsyncIterable<unknown>): Promise<O> {
  for await (const json of replies) return method.decode(json);
  throw new RpcError('INTERNAL', `${method.service}.${method.method} ended without a response`);
}

async function* decodeEach<O>(method: Method<never, O>, replies: AsyncIterable<unknown>): AsyncGenerator<O> {
  for await (const json of replies) yield method.decode(json);
}

/** A unary call. */
export function callUnary<I, O>(transport: Transport, method: Method<I, O, 'unary'>, request: I, options: CallOptions = {}): Promise<O> {
  return single(method as Method<never, O>, transport.call(method as Method, method.encode(request), options));
}

/** A server-streaming call: the responses as they arrive; leaving the loop early cancels the call. */
export function callServerStream<I, O>(transport: Transport, method: Method<I, O, 'server'>, request: I, options: CallOptions = {}): AsyncIterable<O> {
  return decodeEach(method as Method<never, O>, transport.call(method as Method, method.encode(request), options));
}

/** A client-streaming call: sends every request of `requests`, then resolves with the one response. */
export function callClientStream<I, O>(transport: Transport, method: Method<I, O, 'client'>, requests: AsyncIterable<I>, options: CallOptions = {}): Promise<O> {
  return single(method as Method<never, O>, transport.call(method as Method, encodeEach(method, requests), options));
}

/** A bidirectional call: requests go out as `requests` yields them while the responses arrive. */
export function callBidiStream<I, O>(transport: Transport, method: Method<I, O, 'bidi'>, requests: AsyncIterable<I>, options: CallOptions = {}): AsyncIterable<O> {
  return decodeEach(method as Method<never, O>, transport.call(method as Method, encodeEach(method, requests), options));
}

/** The client functions of a method table. */
export type ClientOf<M> = {
  [K in keyof M]: M[K] extends Method<infer I, infer O, 'unary'>
    ? (request: I, options?: CallOptions) => Promise<O>
    : M[K] extends Method<infer I, infer O, 'server'>
      ? (request: I, options?: CallOptions) => AsyncIterable<O>
      : M[K] extends Method<infer I, infer O, 'client'>
        ? (requests: AsyncIterable<I>, options?: CallOptions) => Promise<O>
        : M[K] extends Method<infer I, infer O, 'bidi'>
          ? (requests: AsyncIterable<I>, options?: CallOptions) => AsyncIterable<O>
          : never;
};

const CALLS = { unary: callUnary, server: callServerStream, client: callClientStream, bidi: callBidiStream } as const;

/** A client object with one function per method of `methods` (the generated `<Service>BrowserMethods`). */
export function createClient<M extends Record<string, Method<never, unknown>>>(methods: M, transport: Transport): ClientOf<M> {
  const client: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(methods)) {
    const run = CALLS[method.kind] as unknown as (t: Transport, m: Method<never, unknown>, input: never, options?: CallOptions) => unknown;
    client[name] = (input: never, options?: CallOptions) => run(transport, method, input, options);
  }
  return client as ClientOf<M>;
}
