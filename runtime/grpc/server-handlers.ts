/**
 * How a MethodBinding is served, one function per call kind, against fw's
 * call ports (grpc-call-port.ts). Each wraps the port in a GrpcCall, runs the
 * pipeline, and carries the result back: a unary or client-streaming result
 * through the port's `reply`/`fail`, a streaming result by writing each item
 * with back-pressure (`write` / `drained`). The request stream of a
 * client-streaming or bidi call is the port's `requests`. Cancellation (client or deadline) ends the handler's
 * iterator so its `finally` blocks run.
 */
import { RejectedPayload } from '../core/json-depth';
import { GrpcStatus } from '../core/status';
import { GrpcCall } from './call';
import { GrpcError, toStatusObject } from './errors';
import type { GrpcBidiStreamPort, GrpcClientStreamPort, GrpcReplyStreamPort, GrpcServerStreamPort, GrpcUnaryPort, ServeStream, ServeUnary } from './grpc-call-port';
import { ServiceErrors } from '../rpc/error-catalogue';
import type { MethodBinding } from './method-binding';
import type { CallPipeline } from './pipeline';


/** Where a unary or client-streaming result goes: the call's port. */
type ReplySink = Pick<GrpcUnaryPort, 'reply' | 'fail'>;

/** The serve function of a streaming `binding` through `pipeline`, by call kind (unary methods: serveUnary). */
export function serveStream(binding: MethodBinding, pipeline: CallPipeline): ServeStream {
  switch (binding.streaming) {
    case 'server': return { kind: 'server', serve: serveServerStream(binding, pipeline) };
    case 'client': return { kind: 'client', serve: serveClientStream(binding, pipeline) };
    default: return { kind: 'bidirectional', serve: serveBidiStream(binding, pipeline) };
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

function serveClientStream(binding: MethodBinding, pipeline: CallPipeline): (port: GrpcClientStreamPort) => void {
  return (port) => {
    const call = new GrpcCall(binding, port, undefined, port.requests);
    if (binding.contentType !== undefined) call.useContentType(binding.contentType);
    respond(binding, pipeline, call, port);
  };
}

function serveServerStream(binding: MethodBinding, pipeline: CallPipeline): (port: GrpcServerStreamPort) => void {
  return (port) => {
    if (port.request instanceof RejectedPayload) {
      port.fail(toStatusObject(new GrpcError(GrpcStatus.INVALID_ARGUMENT, port.request.message), binding.path, pipeline.onUnexpected));
      return;
    }
    const call = new GrpcCall(binding, port, port.request, undefined);
    if (binding.contentType !== undefined) call.useContentType(binding.contentType);
    void streamOut(binding, pipeline, call, port);
  };
}

function serveBidiStream(binding: MethodBinding, pipeline: CallPipeline): (port: GrpcBidiStreamPort) => void {
  return (port) => {
    const call = new GrpcCall(binding, port, undefined, port.requests);
    if (binding.contentType !== undefined) call.useContentType(binding.contentType);
    void streamOut(binding, pipeline, call, port);
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
  port: GrpcReplyStreamPort,
): Promise<void> {
  let iterator: AsyncIterator<unknown> | Iterator<unknown> | undefined;
  let settled = false;
  const stop = (): void => {
    // Ends a generator at its next `yield` (running its finally); handlers blocked elsewhere see call.signal.
    if (!settled) void Promise.resolve(iterator?.return?.()).catch(() => undefined);
  };
  port.once('cancelled', stop);
  pipeline.enter();
  try {
    const produced = await pipeline.run(binding, call);
    iterator = iteratorOf(produced, binding.path);
    if (call.cancelled) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done === true || call.cancelled) break;
      call.controlsInUse?.sendHeader();
      if (!port.write(next.value)) await port.drained();
    }
    if (call.cancelled) return;
    const controls = call.controlsInUse;
    if (controls === undefined) port.finish(undefined);
    else {
      controls.sendHeader();
      port.finish(controls.trailers());
    }
  } catch (error) {
    if (call.cancelled) return;
    const controls = call.controlsInUse;
    if (controls?.hasHeaders === true) controls.sendHeader();
    port.fail(toStatusObject(error, binding.path, pipeline.onUnexpected, controls === undefined ? undefined : (extra) => controls.trailers(extra)));
  } finally {
    if (call.cancelled) stop();
    // A 'cancelled' reported after the call ended (grpc-js does so when the stream closes) has nothing to stop.
    settled = true;
    call.finish();
    pipeline.leave();
  }
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
