/**
 * Forwarded server, client and bidirectional streams, over either client
 * (the lean HTTP/2 one or grpc-js) through one ForwardCall shape. Streams run
 * as long as both ends keep them (a chat may last hours): only the caller's
 * own deadline bounds them; a frozen instance is found by the liveness
 * watchdog instead. A server stream that fails UNAVAILABLE before any
 * response header arrived is tried on another instance, each instance at
 * most once; client and bidi streams are not retried: their request stream
 * has already been consumed and cannot be replayed.
 */
import type { IncomingHttpHeaders } from 'node:http2';
import type { Client, Metadata } from '@grpc/grpc-js';
import { GrpcStatus as GrpcCode } from '../../core/status';
import type { RequestContext } from '../../core/request-context';
import { drainOrClose } from '../drain-or-close';
import { callerCancelled, unwatchCaller, watchCaller } from './caller-cancel';
import type { DiscoveryDecision } from './forwarding-events';
import { callError } from './h2-grpc-wire';
import type { H2StreamCall } from './h2-stream-call';
import { relayHeaders, relayTrailers } from './metadata-relay';
import type { ServiceInstance } from './service-instance';
import { beginAttempt, recordOutcome } from './unary-forwarding';

/** One forwarded streaming call, whichever client carries it; messages are bytes. */
export interface ForwardCall {
  write(message: Buffer): boolean;
  drained(): Promise<void>;
  end(): void;
  cancel(): void;
  /** Fails the call with `code` (the instance was found unresponsive). */
  abort(code: number, details: string): void;
  /** Response messages; ends on OK, throws the call's error otherwise. */
  messages(): AsyncIterable<Buffer>;
  /** The instance sent response headers. */
  readonly answered: boolean;
  readonly responseHeaders: IncomingHttpHeaders | undefined;
  readonly trailers: IncomingHttpHeaders | undefined;
}

/** What the stream handlers need from the forwarder. */
export interface StreamForwarding {
  pick(context: RequestContext, tried: ServiceInstance[] | undefined, lastError: unknown): ServiceInstance;
  path(): string;
  nextPath(tried: string, error: unknown): boolean;
  open(instance: ServiceInstance, path: string, context: RequestContext): ForwardCall;
  serialize(value: unknown): Buffer;
  deserialize(bytes: Buffer): unknown;
  observe(decision: DiscoveryDecision, instance: ServiceInstance | undefined, reason: string): void;
}

/** The lean client's streaming call as a ForwardCall (it already has that shape). */
export function leanCall(call: H2StreamCall): ForwardCall {
  return call;
}

/** A grpc-js call as a ForwardCall: a bidi call of Buffers serves every kind (the wire is the same). */
export function grpcJsCall(client: Client, path: string, metadata: Metadata, deadline: number | undefined): ForwardCall {
  const identity = (b: Buffer): Buffer => b;
  const call = client.makeBidiStreamRequest(path, identity, identity, metadata, deadline === undefined ? {} : { deadline });
  let answered = false;
  let headers: IncomingHttpHeaders | undefined;
  let trailers: IncomingHttpHeaders | undefined;
  call.on('metadata', (md: Metadata) => {
    answered = true;
    headers = md.toHttp2Headers() as IncomingHttpHeaders;
  });
  call.on('status', (status: { metadata: Metadata }) => {
    trailers = status.metadata.toHttp2Headers() as IncomingHttpHeaders;
  });
  return {
    write: (message) => call.write(message),
    drained: () => drainOrClose(call),
    end: () => call.end(),
    cancel: () => call.cancel(),
    abort: () => call.cancel(),
    messages: () => call as AsyncIterable<Buffer>,
    get answered() { return answered; },
    get responseHeaders() { return headers; },
    get trailers() { return trailers; },
  };
}

/**
 * Cancels the call when the caller goes away, and fails it UNAVAILABLE when
 * the watchdog finds its instance frozen (no PING ack) instead of waiting on
 * it for as long as the stream may last. Returns the unwatch.
 */
function watchCall(context: RequestContext, instance: ServiceInstance, call: ForwardCall): () => void {
  const cancel = (): void => call.cancel();
  watchCaller(context, cancel);
  const stalled = (): void => call.abort(GrpcCode.UNAVAILABLE, `instance ${instance.key} is unresponsive (no HTTP/2 PING ack)`);
  instance.stallWaiters.add(stalled);
  return () => {
    unwatchCaller(context, cancel);
    instance.stallWaiters.delete(stalled);
  };
}

function codeOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** A failed call's trailers (grpc-js and the lean client both put them on the error as Metadata) back to the caller. */
function relayError(context: RequestContext, call: ForwardCall, error: unknown): void {
  relayHeaders(context, call.responseHeaders);
  const metadata = (error as { metadata?: { toHttp2Headers?: () => unknown } } | null)?.metadata;
  if (typeof metadata?.toHttp2Headers === 'function') relayTrailers(context, metadata.toHttp2Headers() as IncomingHttpHeaders);
}

function decode(f: StreamForwarding, bytes: Buffer): unknown {
  try {
    return f.deserialize(bytes);
  } catch (error) {
    throw callError(GrpcCode.INTERNAL, `Response message parsing error: ${(error as Error).message}`);
  }
}

function encode(f: StreamForwarding, value: unknown): Buffer {
  try {
    return f.serialize(value);
  } catch (error) {
    throw callError(GrpcCode.INTERNAL, `Request message serialization failure: ${(error as Error).message}`);
  }
}

/**
 * The call's response messages, decoded, each marking progress on its
 * instance; the instance's response headers go back before the first one,
 * its trailers once the call ended OK.
 */
async function* relayed(f: StreamForwarding, call: ForwardCall, instance: ServiceInstance, context: RequestContext): AsyncGenerator<unknown> {
  let headersSent = false;
  for await (const message of call.messages()) {
    instance.lastProgressAt = Date.now();
    if (!headersSent) relayHeaders(context, call.responseHeaders);
    headersSent = true;
    yield decode(f, message);
  }
  if (!headersSent) relayHeaders(context, call.responseHeaders);
  relayTrailers(context, call.trailers);
}

export async function* forwardServerStream(f: StreamForwarding, request: unknown, context: RequestContext): AsyncGenerator<unknown> {
  const bytes = encode(f, request);
  let tried: ServiceInstance[] | undefined;
  let lastError: unknown;
  for (;;) {
    const instance = f.pick(context, tried, lastError);
    beginAttempt(instance);
    const path = f.path();
    const call = f.open(instance, path, context);
    call.write(bytes);
    call.end();
    const unwatch = watchCall(context, instance, call);
    let ended = false;
    try {
      yield* relayed(f, call, instance, context);
      ended = true;
      recordOutcome(instance, null);
      return;
    } catch (error) {
      ended = true;
      recordOutcome(instance, codeOf(error) ?? GrpcCode.UNKNOWN, call.answered, false);
      if (!call.answered && f.nextPath(path, error)) continue;
      if (call.answered || callerCancelled(context) || codeOf(error) !== GrpcCode.UNAVAILABLE) {
        relayError(context, call, error);
        throw error;
      }
      f.observe('retry', instance, `${instance.key}: ${(error as Error).message}`);
      (tried ??= []).push(instance);
      lastError = error;
    } finally {
      instance.inFlight--;
      unwatch();
      if (!ended) call.cancel();
    }
  }
}

/** Writes `requests` into `call` with backpressure; stops when the call finished. */
async function pump(f: StreamForwarding, requests: AsyncIterable<unknown>, call: ForwardCall, done: () => boolean): Promise<void> {
  try {
    for await (const r of requests) {
      if (done()) return;
      if (!call.write(f.serialize(r))) await call.drained();
    }
    if (!done()) call.end();
  } catch {
    // The caller's request stream failed (or a message could not be encoded): the forwarded call cannot complete.
    if (!done()) call.cancel();
  }
}

/** A client or bidi stream under way: its instance, path and call, the request pump started. */
interface StreamingUpload {
  instance: ServiceInstance;
  path: string;
  call: ForwardCall;
  /** Stops the pump and the watches, and frees the instance's slot. */
  finish(): void;
}

function startUpload(f: StreamForwarding, requests: unknown, context: RequestContext): StreamingUpload {
  const instance = f.pick(context, undefined, undefined);
  beginAttempt(instance);
  const path = f.path();
  const call = f.open(instance, path, context);
  let finished = false;
  const unwatch = watchCall(context, instance, call);
  void pump(f, requests as AsyncIterable<unknown>, call, () => finished);
  return {
    instance, path, call,
    finish: () => {
      if (!finished) call.cancel();
      finished = true;
      instance.inFlight--;
      unwatch();
    },
  };
}

/** A client or bidi stream failed: no retry (its requests are spent); the next call may use the other path. */
function uploadFailed(f: StreamForwarding, upload: StreamingUpload, context: RequestContext, error: unknown): void {
  recordOutcome(upload.instance, codeOf(error) ?? GrpcCode.UNKNOWN, true, false);
  f.nextPath(upload.path, error);
  relayError(context, upload.call, error);
}

export async function forwardClientStream(f: StreamForwarding, requests: unknown, context: RequestContext): Promise<unknown> {
  const upload = startUpload(f, requests, context);
  const { call } = upload;
  try {
    let reply: Buffer | undefined;
    let count = 0;
    for await (const message of call.messages()) {
      reply = message;
      count++;
    }
    if (count !== 1 || reply === undefined) throw callError(GrpcCode.INTERNAL, 'Expected exactly one response message');
    relayHeaders(context, call.responseHeaders);
    relayTrailers(context, call.trailers);
    recordOutcome(upload.instance, null, true, false);
    return decode(f, reply);
  } catch (error) {
    uploadFailed(f, upload, context, error);
    throw error;
  } finally {
    upload.finish();
  }
}

export async function* forwardBidiStream(f: StreamForwarding, requests: unknown, context: RequestContext): AsyncGenerator<unknown> {
  const upload = startUpload(f, requests, context);
  try {
    yield* relayed(f, upload.call, upload.instance, context);
    recordOutcome(upload.instance, null);
  } catch (error) {
    uploadFailed(f, upload, context, error);
    throw error;
  } finally {
    upload.finish();
  }
}
