/**
 * The conformance cases: one service, served alike by the gateway and by
 * `server.grpc()`, and what each call must give. An expected error names its
 * fw code, gRPC status and HTTP status once; every adapter checks the parts
 * its protocol carries (adapters.ts).
 */
import { GrpcStatus, ServiceError, type RequestContext } from 'fw';
import { GrpcError } from 'fw/grpc';
import { MALFORMED, SERVICE, type CallKind } from './adapter-types';

export { SERVICE };

export interface ExpectedError {
  readonly code: string | undefined;
  /** The code where a wire form names the failure its own way (by adapter name). */
  readonly codeOn?: Readonly<Record<string, string>>;
  readonly grpc: GrpcStatus;
  readonly http: number;
  readonly message?: string;
}

export interface Case {
  readonly name: string;
  readonly method: string;
  readonly kind: CallKind;
  readonly input: unknown;
  /** Calls made before the one checked (the rate limit's first call). */
  readonly warmUp?: number;
  /** The service asked for; SERVICE unless the case is about an unknown one. */
  readonly service?: string;
  /** Items before the end (a unary reply is one item). */
  readonly items: readonly unknown[];
  readonly error?: ExpectedError;
  /** A deadline the caller sends, in milliseconds; the handler's signal must abort too. */
  readonly deadlineMs?: number;
  /** The client cancels the call after this many ms; the handler's signal must abort. */
  readonly cancelAfterMs?: number;
  /**
   * What the case needs of the server: input validation (the gateway's JSON
   * Schema and protovalidate, `server.grpc()`'s protovalidate for generated
   * services) or `configureErrorHandling` (the gateway's alone).
   */
  readonly needs?: 'validation' | 'transformError';
  /** A case about what some wire forms lack: it runs over these adapters alone. */
  readonly onlyOver?: readonly string[];
}

export const TRANSFORMED = 'transformed by configureErrorHandling';
export const ITEM_REFUSED = 'Item 1 refused';

export const CASES: readonly Case[] = [
  { name: 'unary success', method: 'Echo', kind: 'unary', input: { text: 'hi' }, items: [{ text: 'hi' }] },
  { name: 'server-stream success', method: 'Count', kind: 'server', input: { n: 3 }, items: [{ i: 0 }, { i: 1 }, { i: 2 }] },
  {
    name: 'ServiceError with a status', method: 'Missing', kind: 'unary', input: {}, items: [],
    error: { code: 'USER_NOT_FOUND', grpc: GrpcStatus.NOT_FOUND, http: 404, message: 'User 42 not found' },
  },
  {
    name: 'GrpcError', method: 'Exists', kind: 'unary', input: {}, items: [],
    error: { code: 'ALREADY_EXISTS', grpc: GrpcStatus.ALREADY_EXISTS, http: 409, message: 'Already there' },
  },
  {
    name: 'plain Error: a generic message, nothing leaked', method: 'Crash', kind: 'unary', input: {}, items: [],
    error: { code: 'INTERNAL_ERROR', grpc: GrpcStatus.INTERNAL, http: 500, message: 'Internal server error' },
  },
  {
    name: 'validation', method: 'Named', kind: 'unary', input: {}, items: [], needs: 'validation',
    error: { code: 'VALIDATION_ERROR', grpc: GrpcStatus.INVALID_ARGUMENT, http: 400 },
  },
  {
    name: 'unknown method', method: 'Nope', kind: 'unary', input: {}, items: [],
    error: { code: 'METHOD_NOT_FOUND', grpc: GrpcStatus.UNIMPLEMENTED, http: 404 },
  },
  {
    name: 'unknown service', service: 'NoSuchService', method: 'Echo', kind: 'unary', input: {}, items: [],
    error: { code: 'SERVICE_NOT_FOUND', grpc: GrpcStatus.UNIMPLEMENTED, http: 404 },
  },
  {
    name: 'malformed input', method: 'Echo', kind: 'unary', input: MALFORMED, items: [],
    error: {
      // What failed to parse: the JSON body, the message inside the envelope, the WebSocket message, the frame.
      code: 'INVALID_JSON', grpc: GrpcStatus.INVALID_ARGUMENT, http: 400,
      codeOn: {
        'Connect JSON': 'INVALID_ARGUMENT', 'Connect proto': 'INVALID_ARGUMENT', 'gRPC-Web JSON': 'INVALID_ARGUMENT', 'gRPC-Web proto': 'INVALID_ARGUMENT', 'gRPC-Web text': 'INVALID_ARGUMENT',
        'Connect proto (h2c)': 'INVALID_ARGUMENT', 'gRPC-Web proto (h2c)': 'INVALID_ARGUMENT',
        'gRPC proto (gateway)': 'INVALID_ARGUMENT', 'WebSocket json': 'MALFORMED_MESSAGE', 'WebSocket msgpack': 'MALFORMED_MESSAGE',
        'WebSocket binary': 'MALFORMED_FRAME', TCP: 'MALFORMED_FRAME', UDP: 'MALFORMED_FRAME',
      },
    },
  },
  {
    name: 'auth refused', method: 'Guarded', kind: 'unary', input: {}, items: [],
    error: { code: 'UNAUTHENTICATED', grpc: GrpcStatus.UNAUTHENTICATED, http: 401 },
  },
  {
    name: 'rate limit', method: 'Limited', kind: 'unary', input: {}, items: [], warmUp: 1,
    error: { code: 'RATE_LIMIT_EXCEEDED', grpc: GrpcStatus.RESOURCE_EXHAUSTED, http: 429 },
  },
  {
    name: 'transformError on a unary call', method: 'Teapot', kind: 'unary', input: {}, items: [], needs: 'transformError',
    error: { code: 'TEAPOT', grpc: GrpcStatus.FAILED_PRECONDITION, http: 418, message: TRANSFORMED },
  },
  {
    name: 'transformError after a stream item', method: 'TeapotStream', kind: 'server', input: {}, items: [{ i: 0 }], needs: 'transformError',
    error: { code: 'TEAPOT', grpc: GrpcStatus.FAILED_PRECONDITION, http: 418, message: TRANSFORMED },
  },
  {
    name: 'a streaming handler that returns no iterable', method: 'Broken', kind: 'server', input: {}, items: [],
    error: { code: 'INTERNAL_ERROR', grpc: GrpcStatus.INTERNAL, http: 500, message: 'A streaming handler must return an async iterable' },
  },
  {
    name: 'deadline exceeded on a unary call', method: 'Slow', kind: 'unary', input: {}, items: [], deadlineMs: 100,
    error: { code: 'DEADLINE_EXCEEDED', grpc: GrpcStatus.DEADLINE_EXCEEDED, http: 504 },
  },
  {
    name: 'deadline exceeded after a stream item', method: 'SlowStream', kind: 'server', input: {}, items: [{ i: 0 }], deadlineMs: 500,
    error: { code: 'DEADLINE_EXCEEDED', grpc: GrpcStatus.DEADLINE_EXCEEDED, http: 504 },
  },
  { name: 'a client cancel reaching context.signal (unary)', method: 'Slow', kind: 'unary', input: {}, items: [], cancelAfterMs: 100 },
  { name: 'a client cancel reaching context.signal (stream)', method: 'SlowStream', kind: 'server', input: {}, items: [], cancelAfterMs: 100 },
  // Client streams and bidi: `input` is the list of items the client sends.
  { name: 'client-stream success', method: 'Sum', kind: 'client', input: [{ i: 1 }, { i: 2 }, { i: 3 }], items: [{ total: 6 }] },
  { name: 'bidi success', method: 'Chat', kind: 'bidi', input: [{ i: 0 }, { i: 1 }, { i: 2 }], items: [{ i: 0 }, { i: 1 }, { i: 2 }] },
  {
    name: 'client-stream error mid-stream', method: 'SumRefused', kind: 'client', input: [{ i: 0 }, { i: 1 }, { i: 2 }], items: [],
    error: { code: 'ITEM_REFUSED', grpc: GrpcStatus.PERMISSION_DENIED, http: 403, message: ITEM_REFUSED },
  },
  {
    name: 'bidi error mid-stream', method: 'ChatRefused', kind: 'bidi', input: [{ i: 0 }, { i: 1 }, { i: 2 }], items: [{ i: 0 }],
    error: { code: 'ITEM_REFUSED', grpc: GrpcStatus.PERMISSION_DENIED, http: 403, message: ITEM_REFUSED },
  },
  {
    name: 'validation of an invalid client-stream item', method: 'Sum', kind: 'client', input: [{ i: 1 }, { i: -1 }], items: [], needs: 'validation',
    error: { code: 'VALIDATION_ERROR', grpc: GrpcStatus.INVALID_ARGUMENT, http: 400 },
  },
  {
    name: 'validation of an invalid bidi item', method: 'Chat', kind: 'bidi', input: [{ i: 0 }, { i: -1 }], items: [{ i: 0 }], needs: 'validation',
    error: { code: 'VALIDATION_ERROR', grpc: GrpcStatus.INVALID_ARGUMENT, http: 400 },
  },
  // UDP's envelope carries one request and one reply: a streaming method is refused, whatever its kind.
  {
    name: 'a server-streaming method over a datagram', method: 'Count', kind: 'unary', input: { n: 1 }, items: [], onlyOver: ['UDP'],
    error: { code: 'STREAMING_NOT_SUPPORTED', grpc: GrpcStatus.INVALID_ARGUMENT, http: 400 },
  },
  {
    name: 'a client-streaming method over a datagram', method: 'Sum', kind: 'unary', input: [{ i: 1 }], items: [], onlyOver: ['UDP'],
    error: { code: 'STREAMING_NOT_SUPPORTED', grpc: GrpcStatus.INVALID_ARGUMENT, http: 400 },
  },
  {
    name: 'transformError on a client stream', method: 'TeapotSum', kind: 'client', input: [{ i: 1 }], items: [], needs: 'transformError',
    error: { code: 'TEAPOT', grpc: GrpcStatus.FAILED_PRECONDITION, http: 418, message: TRANSFORMED },
  },
  {
    name: 'transformError after a bidi item', method: 'TeapotChat', kind: 'bidi', input: [{ i: 1 }], items: [{ i: 1 }], needs: 'transformError',
    error: { code: 'TEAPOT', grpc: GrpcStatus.FAILED_PRECONDITION, http: 418, message: TRANSFORMED },
  },
  {
    name: 'deadline exceeded on a client stream', method: 'SlowSum', kind: 'client', input: [{ i: 1 }], items: [], deadlineMs: 300,
    error: { code: 'DEADLINE_EXCEEDED', grpc: GrpcStatus.DEADLINE_EXCEEDED, http: 504 },
  },
  {
    name: 'deadline exceeded after a bidi item', method: 'SlowChat', kind: 'bidi', input: [{ i: 1 }], items: [{ i: 0 }], deadlineMs: 300,
    error: { code: 'DEADLINE_EXCEEDED', grpc: GrpcStatus.DEADLINE_EXCEEDED, http: 504 },
  },
  { name: 'a client cancel reaching context.signal (client stream)', method: 'SlowSum', kind: 'client', input: [{ i: 1 }], items: [], cancelAfterMs: 100 },
  { name: 'a client cancel reaching context.signal (bidi)', method: 'SlowChat', kind: 'bidi', input: [{ i: 1 }], items: [], cancelAfterMs: 100 },
];

/**
 * Drain (drain.test.ts): both calls start before `close()`; the stream is
 * still open when `shutdownTimeout` passes and ends with the protocol's
 * UNAVAILABLE, the unary call finishes inside it and is answered.
 */
export const DRAIN_CASES: readonly Case[] = [
  {
    name: 'drain: a stream open past shutdownTimeout ends with UNAVAILABLE', method: 'Endless', kind: 'server', input: {}, items: [{ i: 0 }],
    error: { code: 'UNAVAILABLE', grpc: GrpcStatus.UNAVAILABLE, http: 503 },
  },
  {
    name: 'drain: a bidi stream open past shutdownTimeout ends with UNAVAILABLE', method: 'EndlessChat', kind: 'bidi', input: [{ i: 1 }], items: [{ i: 1 }],
    error: { code: 'UNAVAILABLE', grpc: GrpcStatus.UNAVAILABLE, http: 503 },
  },
  { name: 'drain: a call started before close() completes', method: 'Unhurried', kind: 'unary', input: {}, items: [{ late: true }] },
];

/** How many drain calls reached their handler. */
export const started = { count: 0 };

/** How long the drain's unary call takes: well inside the drain's shutdownTimeout. */
export const UNHURRIED_MS = 150;

/** How many handlers saw their signal abort (the deadline cases wait for it to grow). */
export const aborted = { count: 0 };

/** Resolves when `signal` aborts, or after `ms` (every wait bounded). */
function abortOf(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      aborted.count++;
      resolve();
    }, { once: true });
  });
}

type Handler = (request: never, context: RequestContext) => unknown;
type Items = AsyncIterable<{ i: number }>;

/** The handlers, the same functions on both servers and for the inline and the generated service. */
export const HANDLERS: Record<string, { handler: Handler; streaming: 'none' | 'server' | 'client' | 'bidirectional' }> = {
  Echo: { streaming: 'none', handler: async (request: unknown) => request },
  Count: {
    streaming: 'server',
    handler: async function* (request: { n: number }) {
      for (let i = 0; i < Math.min(request.n, 100); i++) yield { i };
    },
  },
  Missing: { streaming: 'none', handler: async () => { throw new ServiceError('USER_NOT_FOUND', 'User 42 not found', 404, { id: '42' }); } },
  Exists: { streaming: 'none', handler: async () => { throw new GrpcError(GrpcStatus.ALREADY_EXISTS, 'Already there'); } },
  Crash: { streaming: 'none', handler: async () => { throw new Error('secret: the database password is hunter2'); } },
  Named: { streaming: 'none', handler: async (request: unknown) => request },
  Guarded: { streaming: 'none', handler: async () => ({ secret: true }) },
  Limited: { streaming: 'none', handler: async () => ({}) },
  Teapot: { streaming: 'none', handler: async () => { throw new ServiceError('TEAPOT', 'I am a teapot', 418); } },
  TeapotStream: {
    streaming: 'server',
    handler: async function* () {
      yield { i: 0 };
      throw new ServiceError('TEAPOT', 'I am a teapot', 418);
    },
  },
  Broken: { streaming: 'server', handler: () => 42 },
  Slow: {
    streaming: 'none',
    handler: async (_request: unknown, context: RequestContext) => {
      await abortOf(context.signal, 3000);
      return { late: true };
    },
  },
  SlowStream: {
    streaming: 'server',
    handler: async function* (_request: unknown, context: RequestContext) {
      yield { i: 0 };
      await abortOf(context.signal, 3000);
    },
  },
  Sum: {
    streaming: 'client',
    handler: async (requests: Items) => {
      let total = 0;
      for await (const r of requests) total += r.i;
      return { total };
    },
  },
  SumRefused: {
    streaming: 'client',
    handler: async (requests: Items) => {
      for await (const r of requests) if (r.i === 1) throw new ServiceError('ITEM_REFUSED', ITEM_REFUSED, 403);
      return { total: 0 };
    },
  },
  SlowSum: {
    streaming: 'client',
    handler: async (_requests: Items, context: RequestContext) => {
      await abortOf(context.signal, 3000);
      return { total: 0 };
    },
  },
  Chat: {
    streaming: 'bidirectional',
    handler: async function* (requests: Items) {
      for await (const r of requests) yield { i: r.i };
    },
  },
  ChatRefused: {
    streaming: 'bidirectional',
    handler: async function* (requests: Items) {
      for await (const r of requests) {
        if (r.i === 1) throw new ServiceError('ITEM_REFUSED', ITEM_REFUSED, 403);
        yield { i: r.i };
      }
    },
  },
  SlowChat: {
    streaming: 'bidirectional',
    handler: async function* (_requests: Items, context: RequestContext) {
      yield { i: 0 };
      await abortOf(context.signal, 3000);
    },
  },
  TeapotSum: {
    streaming: 'client',
    handler: async (requests: Items) => {
      for await (const r of requests) void r;
      throw new ServiceError('TEAPOT', 'I am a teapot', 418);
    },
  },
  TeapotChat: {
    streaming: 'bidirectional',
    handler: async function* (requests: Items) {
      for await (const r of requests) yield { i: r.i };
      throw new ServiceError('TEAPOT', 'I am a teapot', 418);
    },
  },
  // Drain (drain.test.ts): a stream that only ends when its signal aborts, and a unary call that takes a moment.
  Endless: {
    streaming: 'server',
    handler: async function* (_request: unknown, context: RequestContext) {
      yield { i: 0 };
      started.count++;
      await abortOf(context.signal, 3000);
    },
  },
  EndlessChat: {
    streaming: 'bidirectional',
    handler: async function* (requests: Items, context: RequestContext) {
      // The first item is answered; the request stream stays open (not returned), as a chat's would.
      const first = await requests[Symbol.asyncIterator]().next();
      if (first.done !== true) yield { i: first.value.i };
      started.count++;
      await abortOf(context.signal, 3000);
    },
  },
  Unhurried: {
    streaming: 'none',
    handler: async () => {
      started.count++;
      await new Promise((resolve) => setTimeout(resolve, UNHURRIED_MS));
      return { late: true };
    },
  },
};

/** The handlers keyed as a generated service's implementation is (camelCase). */
export const PROTO_HANDLERS: Record<string, Handler> = Object.fromEntries(
  Object.entries(HANDLERS).map(([name, m]) => [name.charAt(0).toLowerCase() + name.slice(1), m.handler]),
);

/** The JSON Schema of a stream item on the inline service (the proto's buf.validate rule `int32.gte = 0`). */
export const ITEM_SCHEMA = { type: 'object', properties: { i: { type: 'integer', minimum: 0 } } };
