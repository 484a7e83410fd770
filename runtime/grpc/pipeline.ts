/**
 * The gRPC adapter's side of one application's calls: its middleware (spec
 * 4.6: `app.use(async (call, next) => …)`) installed as the interceptors of
 * the app's call core (rpc/call-core.ts), the registry the core resolves in,
 * and the calls whose replies are not yet sent, counted by the core
 * (close() waits for them). With no middleware a call goes straight to its handler.
 */
import type { CallInterceptor } from '../rpc/call-types';
import { CallCore } from '../rpc/call-core';
import { ServiceRegistry } from '../rpc/registry';
import type { GrpcCall } from './call';
import type { UnexpectedErrorListener } from './errors';
import type { MethodBinding } from './method-binding';

/**
 * gRPC middleware. `next()` resolves to the handler's result: the response of
 * a unary/client-streaming call, the AsyncIterable of a streaming one.
 *
 * @example
 * app.use(async (call, next) => {
 *   const started = Date.now();
 *   try { return await next(); } finally { console.log(call.method, Date.now() - started, 'ms'); }
 * });
 */
export type GrpcMiddleware = CallInterceptor<GrpcCall>;

/** An app's middleware, its call core and its calls in flight. */
export class CallPipeline {
  readonly #middleware: GrpcMiddleware[] = [];
  /** The app's services, as the core resolves them. */
  readonly registry = new ServiceRegistry();
  readonly #core = new CallCore(this.registry);
  /** Where errors that became a generic INTERNAL are reported. */
  onUnexpected: UnexpectedErrorListener;
  constructor(onUnexpected: UnexpectedErrorListener) {
    this.onUnexpected = onUnexpected;
  }

  use(middleware: GrpcMiddleware): void {
    if (typeof middleware !== 'function') throw new TypeError('app.use() expects a function (call, next) => result');
    this.#middleware.push(middleware);
    // A GrpcCall is the RpcCall the core hands its interceptors, with gRPC's extras: middleware typed on it sees the object it gets.
    this.#core.setInterceptors(this.#middleware as unknown as CallInterceptor[]);
  }

  /** A call's handler is about to run. */
  enter(): void {
    this.#core.enter();
  }

  /** That call's handler has settled (its result sent, or it failed or was cancelled). */
  leave(): void {
    this.#core.leave();
  }

  /** Resolves once no handler is running (the core's count of calls in flight). */
  idle(): Promise<void> {
    return this.#core.settled();
  }

  /** Runs `call` through the core: middleware, then its handler (health checks skip the middleware); may throw synchronously. */
  run(binding: MethodBinding, call: GrpcCall): unknown {
    if (binding.skipMiddleware || call.resolved === undefined) return binding.invoke(call);
    return this.#core.run(call);
  }
}
