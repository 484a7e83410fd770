/**
 * The conformance cases: one service, served alike by the gateway and by
 * `server.grpc()`, and what each call must give. An expected error names its
 * fw code, gRPC status and HTTP status once; every adapter checks the parts
 * its protocol carries (adapters.ts).
 */
import { GrpcStatus, ServiceError, type RequestContext } from 'fw';
import { GrpcError } from 'fw/grpc';
import { MALFORMED } from './adapters';

/** The service every adapter calls. */
export const SERVICE = 'Conformance';

export type CallKind = 'unary' | 'server';

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
  /** Checked only where this holds: gateway-only features (schemas, transformError) and stream-only kinds. */
  readonly on?: 'gateway';
}

export const TRANSFORMED = 'transformed by configureErrorHandling';

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
    name: 'validation', method: 'Named', kind: 'unary', input: {}, items: [], on: 'gateway',
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
      codeOn: { 'Connect JSON': 'INVALID_ARGUMENT', 'gRPC-Web': 'INVALID_ARGUMENT', 'WebSocket json': 'MALFORMED_MESSAGE', 'WebSocket msgpack': 'MALFORMED_MESSAGE', TCP: 'MALFORMED_FRAME', UDP: 'MALFORMED_FRAME' },
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
    name: 'transformError on a unary call', method: 'Teapot', kind: 'unary', input: {}, items: [], on: 'gateway',
    error: { code: 'TEAPOT', grpc: GrpcStatus.FAILED_PRECONDITION, http: 418, message: TRANSFORMED },
  },
  {
    name: 'transformError after a stream item', method: 'TeapotStream', kind: 'server', input: {}, items: [{ i: 0 }], on: 'gateway',
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
    name: 'deadline exceeded after a stream item', method: 'SlowStream', kind: 'server', input: {}, items: [{ i: 0 }], deadlineMs: 100,
    error: { code: 'DEADLINE_EXCEEDED', grpc: GrpcStatus.DEADLINE_EXCEEDED, http: 504 },
  },
  { name: 'a client cancel reaching context.signal (unary)', method: 'Slow', kind: 'unary', input: {}, items: [], cancelAfterMs: 100 },
  { name: 'a client cancel reaching context.signal (stream)', method: 'SlowStream', kind: 'server', input: {}, items: [], cancelAfterMs: 100 },
];

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

/** The handlers, the same functions on both servers. */
export const HANDLERS: Record<string, { handler: Handler; streaming: 'none' | 'server' }> = {
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
};
