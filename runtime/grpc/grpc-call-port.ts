/**
 * fw's own shape of a served gRPC unary call, whichever engine carries it:
 * what fw's handler layer (server-handlers.ts) needs of the call — its
 * source (metadata, peer, deadline, cancellation), the request, and one
 * reply sink. fw's node:http2 engine implements it on its call object
 * itself (no callback, no grpc-js emulation); the grpc-js fallback engine
 * reaches it through one thin adapter over grpc-js's call and callback.
 */
import type { CallSource } from './call';
import type { FwStatusObject } from './errors';
import type { OutgoingMetadata } from './metadata-map';

/** One unary call as an engine hands it to fw's handler layer. */
export interface GrpcUnaryPort extends CallSource {
  /** The decoded request message (a RejectedPayload when the engine refused it). */
  readonly request: unknown;
  /** Sends the response headers now (once); otherwise they leave with the reply or the status. */
  sendMetadata(metadata: OutgoingMetadata): void;
  /** Sends the reply message and the OK status, with `trailers` beside it (ends the call). */
  reply(value: unknown, trailers: OutgoingMetadata | undefined): void;
  /** Ends the call with `status` (its metadata goes out as trailers). */
  fail(status: FwStatusObject): void;
}

/** Serves one unary call through its port. */
export type ServeUnary = (port: GrpcUnaryPort) => void;

/** The method descriptions an engine needs beside the serve function. */
export interface UnaryPortMethod {
  readonly path: string;
  /** PascalCase name, the implementation key grpc-js's Server looks up. */
  readonly name: string;
  readonly requestDeserialize: (bytes: Buffer) => unknown;
  readonly requestSerialize: (value: unknown) => Buffer;
  readonly responseSerialize: (value: unknown) => Buffer;
  readonly responseDeserialize: (bytes: Buffer) => unknown;
  readonly serve: ServeUnary;
}

/**
 * The request side of a client-streaming or bidi call: the request messages
 * as an AsyncIterable. It ends with CANCELLED when the client cancels (a
 * handler waiting for the next message would otherwise wait forever), and a
 * message the engine refused ends it with INVALID_ARGUMENT. Leaving the loop
 * early never ends the reply side.
 */
export interface GrpcRequestStreamPort {
  readonly requests: AsyncIterable<unknown>;
}

/** The reply side of a server-streaming or bidi call, with the call's source. */
export interface GrpcReplyStreamPort extends CallSource {
  /** Sends the response headers now (once); otherwise they leave with the first message or the status. */
  sendMetadata(metadata: OutgoingMetadata): void;
  /** Sends one reply message; false when the transport is full: wait for `drained()` before the next. */
  write(message: unknown): boolean;
  /** Resolves when the call can take more messages, or when it ended. */
  drained(): Promise<void>;
  /** Ends the call with the OK status, `trailers` beside it. */
  finish(trailers: OutgoingMetadata | undefined): void;
  /** Ends the call with `status` (its metadata goes out as trailers). */
  fail(status: FwStatusObject): void;
}

/** A client-streaming call: a request stream, one reply. */
export interface GrpcClientStreamPort extends CallSource, GrpcRequestStreamPort, Pick<GrpcUnaryPort, 'reply' | 'fail'> {
  /** Sends the response headers now (once); otherwise they leave with the reply or the status. */
  sendMetadata(metadata: OutgoingMetadata): void;
}

/** A server-streaming call: one request (a RejectedPayload when the engine refused it), a reply stream. */
export interface GrpcServerStreamPort extends GrpcReplyStreamPort {
  readonly request: unknown;
}

/** A bidi call: a request stream and a reply stream. */
export interface GrpcBidiStreamPort extends GrpcReplyStreamPort, GrpcRequestStreamPort {}

/** The serve functions of a streaming method, one per call kind. */
export type ServeStream =
  | { readonly kind: 'server'; readonly serve: (port: GrpcServerStreamPort) => void }
  | { readonly kind: 'client'; readonly serve: (port: GrpcClientStreamPort) => void }
  | { readonly kind: 'bidirectional'; readonly serve: (port: GrpcBidiStreamPort) => void };

/** A streaming method as an engine registers it: the codecs beside its serve function. */
export type StreamPortMethod = Omit<UnaryPortMethod, 'serve'> & ServeStream;
