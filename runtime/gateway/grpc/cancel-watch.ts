/**
 * A gRPC call's abort signal, made on first read: most unary handlers never
 * look at it, so most calls build no AbortController and add no listener.
 * grpc-js emits 'cancelled' after completed calls too; `finish()` (run once
 * the answer is handed over) turns that into a no-op.
 */
import type { EventEmitter } from 'node:events';

/** What the watch reads of a call (grpc-js's server calls and fw's node:http2 ones alike). */
type CancellableCall = Pick<EventEmitter, 'once'> & { readonly cancelled: boolean };

export class CancelWatch {
  readonly #call: CancellableCall;
  #controller: AbortController | undefined = undefined;
  #finished = false;

  constructor(call: CancellableCall) {
    this.#call = call;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.#call.cancelled) {
        if (!this.#finished) controller.abort();
      } else {
        this.#call.once('cancelled', () => {
          if (!this.#finished) controller.abort();
        });
      }
    }
    return this.#controller.signal;
  }

  /** The call is answered: a later 'cancelled' is the stream closing, not a cancel. */
  finish(): void {
    this.#finished = true;
  }
}
