/**
 * The call as the core's interceptors and middleware see it, whichever
 * transport carried it, and the small shapes a registered method is made of.
 */
import type { Middleware } from '../core/compose';
import type { RequestContext } from '../core/request-context';
import type { StreamingMode } from './descriptor';

/** The call's request metadata (spec 4.6's `call.metadata`). */
export interface CallMetadata {
  /** Every value of `name` (lowercase); empty when absent. */
  get(name: string): (string | Buffer)[];
  /** One value per key (the first), as a plain object. */
  getMap(): Record<string, string | Buffer>;
}

/**
 * One call after its transport decoded it: what every interceptor and
 * middleware sees, on the gateway and on `server.grpc()` (whose `GrpcCall`
 * adds the gRPC specifics).
 */
export interface RpcCall {
  /** Service name (the gateway's registered name; `user.UserService` on `server.grpc()`). */
  readonly service: string;
  /** Method name (as registered on the gateway; PascalCase `GetUser` on `server.grpc()`). */
  readonly method: string;
  readonly streaming: StreamingMode;
  /** Decoded request, or an async iterable of requests for client/bidi streaming. */
  request: unknown;
  readonly context: RequestContext;
  /** Request metadata: `get(name)` lists every value, `getMap()` the first of each. */
  readonly metadata: CallMetadata;
  /** Set by authentication middleware; handlers read it back (`context.authentication`). */
  user: unknown;
  /** The caller's `address:port`. */
  getPeer(): string;
}

/**
 * Wraps calls in onion order (core/compose). The result is the handler's
 * result: a value, or an async iterable for server/bidi streaming. A failing
 * call rejects with the error the transport will translate. The one
 * middleware type of fw: gateway interceptors see an `RpcCall`;
 * `server.grpc()` middleware (`GrpcMiddleware`) is this type on `GrpcCall`,
 * the `RpcCall` its adapter builds, with gRPC's extras.
 */
export type CallInterceptor<Call extends RpcCall = RpcCall> = Middleware<Call, unknown>;

/** A handler as the core calls it: value or promise for unary/client streaming, async iterable for server/bidi streaming. */
export type RpcHandler = (request: never, context: RequestContext) => unknown;

/** Checks a message; throws the error the caller gets (a validation failure). */
export type Validator = (value: unknown) => void;
