/**
 * The call as the core's interceptors and middleware see it, whichever
 * transport carried it, and the small shapes a registered method is made of.
 */
import type { Middleware } from '../core/compose';
import type { RequestContext } from '../core/request-context';
import type { StreamingMode } from './descriptor';

/** One call after its transport decoded it. */
export interface RpcCall {
  service: string;
  method: string;
  streaming: StreamingMode;
  /** Decoded request, or an async iterable of requests for client/bidi streaming. */
  request: unknown;
  context: RequestContext;
}

/**
 * Wraps calls in onion order (core/compose). The result is the handler's
 * result: a value, or an async iterable for server/bidi streaming. A failing
 * call rejects with the error the transport will translate.
 */
export type CallInterceptor = Middleware<RpcCall, unknown>;

/** A handler as the core calls it: value or promise for unary/client streaming, async iterable for server/bidi streaming. */
export type RpcHandler = (request: never, context: RequestContext) => unknown;

/** Checks a message; throws the error the caller gets (a validation failure). */
export type Validator = (value: unknown) => void;
