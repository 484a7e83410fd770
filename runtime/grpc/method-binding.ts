/**
 * The runtime's one internal shape for a servable method, whichever of the
 * three `addService` forms it came from: identity, codecs, and an `invoke`
 * that calls the user's handler with the arguments its form expects.
 */
import type { CallTarget, GrpcCall } from './call';
import type { PackageDefinition } from '@grpc/proto-loader';

/** Calls the user's handler: returns a value (or promise) for unary/client streaming, an AsyncIterable otherwise. */
export type Invoker = (call: GrpcCall) => unknown;

/** One servable method: its identity, codecs and how to call its handler. */
export interface MethodBinding extends CallTarget {
  /** Request bytes → request object. */
  readonly requestDeserialize: (bytes: Buffer) => unknown;
  /** Request object → bytes (used by clients and the in-process test client). */
  readonly requestSerialize: (value: unknown) => Buffer;
  readonly responseSerialize: (value: unknown) => Buffer;
  readonly responseDeserialize: (bytes: Buffer) => unknown;
  readonly invoke: Invoker;
  /** Health checks bypass middleware so probes need no credentials. */
  readonly skipMiddleware: boolean;
  /** Response content-type when not grpc-js's `application/grpc+proto` (the JSON codec's `application/grpc+json`). */
  readonly contentType?: string;
}

/** A service as the server registers it. */
export interface ServiceBinding {
  /** Fully-qualified name: `user.UserService`. */
  readonly name: string;
  readonly methods: readonly MethodBinding[];
  /** Set for proto-loaded services: what reflection describes. */
  readonly packageDefinition: PackageDefinition | undefined;
}

/** `bytes` viewed as a Buffer without copying. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
