/**
 * The middleware chain of one application (spec 4.6: `app.use(async (call,
 * next) => …)`, onion order, through core/compose). Composed once per method
 * and cached; with no middleware a call goes straight to its handler, so the
 * common case allocates no closures.
 */
import { compose, type Middleware } from '../core/compose';
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
export type GrpcMiddleware = Middleware<GrpcCall, unknown>;

/** An app's middleware list and the per-method chains composed from it. */
export class CallPipeline {
  readonly #middleware: GrpcMiddleware[] = [];
  #composed = new Map<MethodBinding, (call: GrpcCall) => Promise<unknown>>();
  /** Where errors that became a generic INTERNAL are reported. */
  onUnexpected: UnexpectedErrorListener;
  /** Calls whose handler has started and not yet settled (close() waits for them). */
  #inflight = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(onUnexpected: UnexpectedErrorListener) {
    this.onUnexpected = onUnexpected;
  }

  use(middleware: GrpcMiddleware): void {
    if (typeof middleware !== 'function') throw new TypeError('app.use() expects a function (call, next) => result');
    this.#middleware.push(middleware);
    this.#composed = new Map();
  }

  /** A call's handler is about to run. */
  enter(): void {
    this.#inflight++;
  }

  /** That call's handler has settled (its result sent, or it failed or was cancelled). */
  leave(): void {
    this.#inflight--;
    // Most calls end with nobody waiting: no array is copied then.
    if (this.#inflight === 0 && this.#idleWaiters.length > 0) for (const w of this.#idleWaiters.splice(0)) w();
  }

  /** Resolves once no handler is running. */
  idle(): Promise<void> {
    if (this.#inflight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Runs `call` through the middleware into its handler; may throw synchronously. */
  run(binding: MethodBinding, call: GrpcCall): unknown {
    if (binding.skipMiddleware || this.#middleware.length === 0) return binding.invoke(call);
    let run = this.#composed.get(binding);
    if (run === undefined) {
      run = compose(this.#middleware, binding.invoke);
      this.#composed.set(binding, run);
    }
    return run(call);
  }
}
