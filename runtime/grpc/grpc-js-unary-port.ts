/**
 * The one adapter from grpc-js's unary server call and callback to fw's call
 * port (grpc-call-port.ts), so the grpc-js fallback engine serves unary
 * methods through the same handler logic as fw's node:http2 engine. Loaded
 * only with that engine.
 */
import type { ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { compressionStateOf, STATE, type StreamCompression } from './compression';
import type { FwStatusObject } from './errors';
import type { GrpcUnaryPort, UnaryPortMethod } from './grpc-call-port';
import type { OutgoingMetadata, ReadableMetadata } from './metadata-map';

// fw's metadata maps go to grpc-js as they are: grpc-js only clones them and reads them as HTTP/2 headers.
type Reply = (error: FwStatusObject | null, value?: unknown, trailers?: OutgoingMetadata) => void;

class GrpcJsUnaryPort implements GrpcUnaryPort {
  readonly #call: ServerUnaryCall<unknown, unknown>;
  readonly #callback: Reply;
  constructor(call: ServerUnaryCall<unknown, unknown>, callback: Reply) {
    this.#call = call;
    this.#callback = callback;
  }
  /** The compression hooks find the call's state through the port as they would on grpc-js's call. */
  get [STATE](): StreamCompression | undefined {
    return compressionStateOf(this.#call);
  }
  get request(): unknown {
    return this.#call.request;
  }
  get metadata(): ReadableMetadata {
    return this.#call.metadata as unknown as ReadableMetadata;
  }
  get cancelled(): boolean {
    return this.#call.cancelled;
  }
  getPeer(): string {
    return this.#call.getPeer();
  }
  getDeadline(): Date | number {
    return this.#call.getDeadline();
  }
  once(event: 'cancelled', listener: () => void): unknown {
    return this.#call.once(event, listener);
  }
  sendMetadata(metadata: OutgoingMetadata): void {
    this.#call.sendMetadata(metadata as unknown as Parameters<ServerUnaryCall<unknown, unknown>['sendMetadata']>[0]);
  }
  reply(value: unknown, trailers: OutgoingMetadata | undefined): void {
    this.#callback(null, value, trailers);
  }
  fail(status: FwStatusObject): void {
    this.#callback(status);
  }
}

/** `method`'s serve function as the grpc-js handler grpc-js's Server calls. */
export function grpcJsUnaryHandler(method: UnaryPortMethod): (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void {
  return (call, callback) => method.serve(new GrpcJsUnaryPort(call, callback as unknown as Reply));
}
