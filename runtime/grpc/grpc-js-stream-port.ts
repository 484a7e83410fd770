/**
 * The one adapter from grpc-js's streaming server calls to fw's streaming
 * call ports (grpc-call-port.ts), used only by the grpc-js fallback engine
 * (grpc-js-engine.ts): fw's streaming handler logic (server-handlers.ts,
 * the gateway's serve-route.ts, health, reflection) is written once against
 * the port, and fw's node:http2 engine's call objects are the ports themselves.
 */
import { RejectedPayload } from '../core/json-depth';
import { GrpcStatus } from '../core/status';
import type { CallSource } from './call';
import { compressionStateOf, STATE, type StreamCompression } from './compression';
import { GrpcError, type FwStatusObject } from './errors';
import type { GrpcBidiStreamPort, GrpcClientStreamPort, GrpcServerStreamPort, ServeStream } from './grpc-call-port';
import type { OutgoingMetadata, ReadableMetadata } from './metadata-map';

/** A streaming server call as grpc-js shapes it (ServerWritableStream, ServerReadableStream, ServerDuplexStream). */
interface GrpcJsStreamCall extends CallSource {
  readonly request?: unknown;
  readonly readableEnded: boolean;
  iterator(options: { destroyOnReturn: boolean }): AsyncIterator<unknown>;
  destroy(error?: Error): unknown;
  write(value: unknown): boolean;
  end(trailers?: OutgoingMetadata): unknown;
  emit(event: 'error', status: FwStatusObject): boolean;
  once(event: string, listener: () => void): unknown;
  removeListener(event: string, listener: () => void): unknown;
}

/** grpc-js's client-streaming callback. */
type Reply = (error: FwStatusObject | null, value?: unknown, trailers?: OutgoingMetadata) => void;

/** A streaming call the engine can end itself (a forced shutdown). */
export interface OpenStreamCall {
  /** Ends the call with `status` unless it has its own; what its handler sends afterwards is dropped. */
  end(status: FwStatusObject): void;
}

/**
 * The engine's streaming calls still open. A call leaves when grpc-js
 * reports it over ('cancelled': its status sent, the client gone, or the
 * connection cut).
 */
export type OpenStreamCalls = Set<OpenStreamCall>;

class GrpcJsStreamPort implements GrpcServerStreamPort, GrpcClientStreamPort, GrpcBidiStreamPort, OpenStreamCall {
  readonly #call: GrpcJsStreamCall;
  readonly #callback: Reply | undefined;
  #answered = false;
  /** The engine ended the call (a forced shutdown): the handler's later messages and answers go nowhere. */
  #ended = false;
  /** The 'cancelled' listeners fw registered, run at once when the engine ends the call (grpc-js reports it only once the status is sent). */
  readonly #onCancel: (() => void)[] = [];

  constructor(call: GrpcJsStreamCall, callback: Reply | undefined, readsRequests: boolean, open: OpenStreamCalls) {
    this.#call = call;
    this.#callback = callback;
    open.add(this);
    call.once('cancelled', () => open.delete(this));
    // grpc-js also reports 'cancelled' when a finished call's stream closes: those are ignored, unless the engine ended the call.
    if (readsRequests) {
      call.once('cancelled', () => {
        if ((!this.#answered || this.#ended) && !call.readableEnded) call.destroy(new GrpcError(GrpcStatus.CANCELLED, 'Call cancelled by the client'));
      });
    }
  }
  /** The compression hooks find the call's state through the port as they would on the call. */
  get [STATE](): StreamCompression | undefined {
    return compressionStateOf(this.#call);
  }
  get request(): unknown {
    return this.#call.request;
  }
  get metadata(): ReadableMetadata {
    return this.#call.metadata;
  }
  get cancelled(): boolean {
    return this.#ended || this.#call.cancelled;
  }
  getPeer(): string {
    return this.#call.getPeer();
  }
  getDeadline(): Date | number {
    return this.#call.getDeadline();
  }
  once(event: 'cancelled', listener: () => void): unknown {
    let ran = false;
    const once = (): void => {
      if (ran) return;
      ran = true;
      listener();
    };
    this.#onCancel.push(once);
    return this.#call.once(event, once);
  }
  sendMetadata(metadata: OutgoingMetadata): void {
    this.#call.sendMetadata?.(metadata);
  }
  /** Breaking out of `for await` must not destroy the duplex (that would end the reply side too). */
  get requests(): AsyncIterable<unknown> {
    const call = this.#call;
    return { [Symbol.asyncIterator]: () => refuseRejected(call.iterator({ destroyOnReturn: false })) };
  }
  write(message: unknown): boolean {
    if (this.#ended) return true;
    return this.#call.write(message);
  }
  drained(): Promise<void> {
    const call = this.#call;
    return new Promise((resolve) => {
      const done = (): void => {
        call.removeListener('drain', done);
        call.removeListener('cancelled', done);
        call.removeListener('close', done);
        resolve();
      };
      call.once('drain', done);
      call.once('cancelled', done);
      call.once('close', done);
    });
  }
  finish(trailers: OutgoingMetadata | undefined): void {
    if (this.#ended) return;
    this.#answered = true;
    if (trailers === undefined) this.#call.end();
    else this.#call.end(trailers);
  }
  reply(value: unknown, trailers: OutgoingMetadata | undefined): void {
    if (this.#ended) return;
    this.#answered = true;
    this.#callback?.(null, value, trailers);
  }
  fail(status: FwStatusObject): void {
    if (this.#ended) return;
    this.#answered = true;
    if (this.#callback === undefined) this.#call.emit('error', status);
    else this.#callback(status);
  }
  end(status: FwStatusObject): void {
    if (this.#answered) return;
    this.fail(status);
    this.#ended = true;
    // As a client's cancel does: the handler's signal aborts, its stream stops at the next item.
    for (const listener of this.#onCancel.splice(0)) listener();
  }
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

/** A grpc-js-shaped streaming handler (what grpc-js's Server takes). */
export type GrpcJsStreamHandler = ((call: GrpcJsStreamCall) => void) | ((call: GrpcJsStreamCall, callback: Reply) => void);

/** `method`'s serve function as the grpc-js-shaped handler grpc-js's Server calls; each call is in `open` until grpc-js reports it over. */
export function grpcJsStreamHandler(method: ServeStream, open: OpenStreamCalls): GrpcJsStreamHandler {
  switch (method.kind) {
    case 'server': {
      const serve = method.serve;
      return (call: GrpcJsStreamCall) => serve(new GrpcJsStreamPort(call, undefined, false, open));
    }
    case 'client': {
      const serve = method.serve;
      return (call: GrpcJsStreamCall, callback: Reply) => serve(new GrpcJsStreamPort(call, callback, true, open));
    }
    default: {
      const serve = method.serve;
      return (call: GrpcJsStreamCall) => serve(new GrpcJsStreamPort(call, undefined, true, open));
    }
  }
}
