/**
 * How a MethodBinding is served, one function per call kind. Each wraps the
 * engine's call in a GrpcCall, runs the pipeline, and carries the result
 * back: a unary result through the call's port (grpc-call-port.ts, which
 * fw's node:http2 engine implements itself), a client-streaming result
 * through grpc-js's callback, a streaming result by writing each item with
 * back-pressure. Cancellation (client or deadline) ends the handler's
 * iterator so its `finally` blocks run.
 */
import { RejectedPayload } from '../core/json-depth';
import { GrpcStatus } from '../core/status';
import { GrpcCall, type CallSource } from './call';
import { GrpcError, toStatusObject, type FwStatusObject } from './errors';
import type { GrpcUnaryPort, ServeUnary } from './grpc-call-port';
import type { OutgoingMetadata } from './metadata-map';
import { ServiceErrors } from '../rpc/error-catalogue';
import type { MethodBinding } from './method-binding';
import type { CallPipeline } from './pipeline';


/** A unary or server-streaming call as grpc-js's server (and fw's node:http2 engine) hand it over. */
interface SingleRequestCall extends CallSource {
  readonly request: unknown;
}

/** The response side of a streaming call (grpc-js's writable server streams). */
interface ResponseStream extends CallSource {
  write(value: unknown): boolean;
  end(trailers?: OutgoingMetadata): unknown;
  emit(event: 'error', status: FwStatusObject): boolean;
  once(event: string, listener: () => void): unknown;
  removeListener(event: string, listener: () => void): unknown;
}

/** The request side of a client-streaming or bidi call. */
interface RequestStream extends CallSource {
  iterator(options: { destroyOnReturn: boolean }): AsyncIterator<unknown>;
  readonly readableEnded: boolean;
  destroy(error?: Error): unknown;
}

type Callback = (error: FwStatusObject | null, value?: unknown, trailer?: OutgoingMetadata) => void;

/** Where a unary or client-streaming result goes: the call's port, or grpc-js's callback behind an adapter. */
type ReplySink = Pick<GrpcUnaryPort, 'reply' | 'fail'>;

/** A streaming handler in grpc-js's server shape, by call kind. */
export type UntypedHandler =
  | ((call: SingleRequestCall & ResponseStream) => void)
  | ((call: RequestStream, callback: Callback) => void)
  | ((call: RequestStream & ResponseStream) => void);

/** The grpc-js-shaped handler serving a streaming `binding` through `pipeline` (unary methods are served through their port: serveUnary). */
export function createHandler(binding: MethodBinding, pipeline: CallPipeline): UntypedHandler {
  switch (binding.streaming) {
    case 'server': return serverStreaming(binding, pipeline);
    case 'client': return clientStreaming(binding, pipeline);
    default: return bidiStreaming(binding, pipeline);
  }
}

/** Serves a unary `binding` through `pipeline`, replying through the call's port (no callback, no closure per call). */
export function serveUnary(binding: MethodBinding, pipeline: CallPipeline): ServeUnary {
  return (port) => {
    if (port.request instanceof RejectedPayload) {
      port.fail(toStatusObject(new GrpcError(GrpcStatus.INVALID_ARGUMENT, port.request.message), binding.path, pipeline.onUnexpected));
      return;
    }
    const call = new GrpcCall(binding, port, port.request, undefined);
    if (binding.contentType !== undefined) call.useContentType(binding.contentType);
    respond(binding, pipeline, call, port);
  };
}

function clientStreaming(binding: MethodBinding, pipeline: CallPipeline): (call: RequestStream, callback: Callback) => void {
  return (grpcCall, callback) => {
    const call = new GrpcCall(binding, grpcCall, undefined, incoming(grpcCall));
    if (binding.contentType !== undefined) call.useContentType(binding.contentType);
    endReadsOnCancel(grpcCall, call);
    respond(binding, pipeline, call, { reply: (value, trailers) => callback(null, value, trailers), fail: (status) => callback(status) });
  };
}

function serverStreaming(binding: MethodBinding, pipeline: CallPipeline): (call: SingleRequestCall & ResponseStream) => void {
  return (grpcCall) => {
    if (grpcCall.request instanceof RejectedPayload) {
      grpcCall.emit('error', toStatusObject(new GrpcError(GrpcStatus.INVALID_ARGUMENT, grpcCall.request.message), binding.path, pipeline.onUnexpected));
      return;
    }
    const call = new GrpcCall(binding, grpcCall, grpcCall.request, undefined);
    if (binding.contentType !== undefined) call.useContentType(binding.contentType);
    void streamOut(binding, pipeline, call, grpcCall);
  };
}

function bidiStreaming(binding: MethodBinding, pipeline: CallPipeline): (call: RequestStream & ResponseStream) => void {
  return (grpcCall) => {
    const call = new GrpcCall(binding, grpcCall, undefined, incoming(grpcCall));
    if (binding.contentType !== undefined) call.useContentType(binding.contentType);
    endReadsOnCancel(grpcCall, call);
    void streamOut(binding, pipeline, call, grpcCall);
  };
}


function respond(binding: MethodBinding, pipeline: CallPipeline, call: GrpcCall, sink: ReplySink): void {
  pipeline.enter();
  let result: unknown;
  try {
    result = pipeline.run(binding, call);
  } catch (error) {
    fail(binding, pipeline, call, sink, error);
    pipeline.leave();
    return;
  }
  if (isThenable(result)) {
    result.then(
      (value) => {
        succeed(call, sink, value);
        pipeline.leave();
      },
      (error: unknown) => {
        fail(binding, pipeline, call, sink, error);
        pipeline.leave();
      },
    );
    return;
  }
  succeed(call, sink, result);
  pipeline.leave();
}

function succeed(call: GrpcCall, sink: ReplySink, value: unknown): void {
  call.finish();
  const controls = call.controlsInUse;
  if (controls === undefined) {
    sink.reply(value, undefined);
    return;
  }
  controls.sendHeader();
  sink.reply(value, controls.trailers());
}

function fail(binding: MethodBinding, pipeline: CallPipeline, call: GrpcCall, sink: ReplySink, error: unknown): void {
  call.finish();
  const controls = call.controlsInUse;
  // Headers the handler set go out as headers; with none the status leaves as a Trailers-Only response.
  if (controls?.hasHeaders === true) controls.sendHeader();
  sink.fail(toStatusObject(error, binding.path, pipeline.onUnexpected, controls === undefined ? undefined : (extra) => controls.trailers(extra)));
}

async function streamOut(
  binding: MethodBinding,
  pipeline: CallPipeline,
  call: GrpcCall,
  stream: ResponseStream,
): Promise<void> {
  let iterator: AsyncIterator<unknown> | Iterator<unknown> | undefined;
  const stop = (): void => {
    // Ends a generator at its next `yield` (running its finally); handlers blocked elsewhere see call.signal.
    void Promise.resolve(iterator?.return?.()).catch(() => undefined);
  };
  stream.once('cancelled', stop);
  pipeline.enter();
  try {
    const produced = await pipeline.run(binding, call);
    iterator = iteratorOf(produced, binding.path);
    if (call.cancelled) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done === true || call.cancelled) break;
      call.controlsInUse?.sendHeader();
      if (!stream.write(next.value)) await drained(stream);
    }
    if (call.cancelled) return;
    const controls = call.controlsInUse;
    if (controls === undefined) stream.end();
    else {
      controls.sendHeader();
      stream.end(controls.trailers());
    }
  } catch (error) {
    if (call.cancelled) return;
    const controls = call.controlsInUse;
    if (controls?.hasHeaders === true) controls.sendHeader();
    stream.emit('error', toStatusObject(error, binding.path, pipeline.onUnexpected, controls === undefined ? undefined : (extra) => controls.trailers(extra)));
  } finally {
    stream.removeListener('cancelled', stop);
    if (call.cancelled) stop();
    call.finish();
    pipeline.leave();
  }
}

/** Resolves when the stream can take more, or when the call ends. */
function drained(stream: ResponseStream): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.removeListener('drain', done);
      stream.removeListener('cancelled', done);
      stream.removeListener('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('cancelled', done);
    stream.once('close', done);
  });
}

/**
 * The request stream as an AsyncIterable. Breaking out of `for await` must not
 * destroy a duplex (that would kill the response side too).
 */
function incoming(stream: RequestStream): AsyncIterable<unknown> {
  return { [Symbol.asyncIterator]: () => refuseRejected(stream.iterator({ destroyOnReturn: false })) };
}

/** A request stream whose refused messages (RejectedPayload) end the iteration with INVALID_ARGUMENT. */
function refuseRejected(source: AsyncIterator<unknown>): AsyncIterator<unknown> {
  return {
    next: async () => {
      const next = await source.next();
      if (next.done !== true && next.value instanceof RejectedPayload) throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, next.value.message);
      return next;
    },
    return: async (value?: unknown) => (source.return === undefined ? { done: true, value } : source.return(value)),
  };
}

/**
 * A handler reading requests of a cancelled call would wait forever: make the
 * iteration throw CANCELLED instead. grpc-js also reports 'cancelled' when a
 * finished call's stream closes; those are ignored.
 */
function endReadsOnCancel(stream: RequestStream, call: GrpcCall): void {
  stream.once('cancelled', () => {
    if (!call.finished && !stream.readableEnded) stream.destroy(new GrpcError(GrpcStatus.CANCELLED, 'Call cancelled by the client'));
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

/**
 * The iterator of a streaming handler's result: an async iterable (async
 * generator, the spec's shape) or, as a convenience, a sync iterable such as
 * an array. Anything else is a programming error: INTERNAL, reported to
 * `onUnexpectedError` too.
 */
export function iteratorOf(produced: unknown, path: string): AsyncIterator<unknown> | Iterator<unknown> {
  if (isAsyncIterable(produced)) return produced[Symbol.asyncIterator]();
  if (typeof produced === 'object' && produced !== null && typeof (produced as Iterable<unknown>)[Symbol.iterator] === 'function') {
    return (produced as Iterable<unknown>)[Symbol.iterator]();
  }
  // The same answer as every gateway transport gives (INTERNAL_ERROR); the path goes to onUnexpectedError's log.
  throw Object.assign(ServiceErrors.notIterable(), { path });
}

/** True when `value` can be iterated with `for await`. */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}
