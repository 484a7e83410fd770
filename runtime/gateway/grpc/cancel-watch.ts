/**
 * A gRPC call's cancellation as the gateway's handlers see it. The abort
 * signal is made on first read: most unary handlers never look at it, so
 * most calls build no AbortController and add no listener. fw's own
 * forwarding asks through the Cancellation side door instead
 * (core/cancellation.ts), which needs neither. grpc-js emits 'cancelled'
 * after completed calls too; `finish()` (run once the answer is handed over)
 * turns that into a no-op.
 */
import type { EventEmitter } from 'node:events';
import type { Cancellation } from '../../core/cancellation';

/** What the watch reads of a call (grpc-js's server calls and fw's node:http2 ones alike). */
type CancellableCall = Pick<EventEmitter, 'once'> & { readonly cancelled: boolean };

export class CancelWatch implements Cancellation {
  readonly #call: CancellableCall;
  #controller: AbortController | undefined = undefined;
  /** One listener (the usual case), or several. */
  #listeners: (() => void) | Set<() => void> | undefined = undefined;
  #subscribed = false;
  #cancelled = false;
  #finished = false;

  constructor(call: CancellableCall) {
    this.#call = call;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.cancelled) {
        this.#cancelled = true;
        controller.abort();
      } else this.#subscribe();
    }
    return this.#controller.signal;
  }

  get cancelled(): boolean {
    return this.#cancelled || (!this.#finished && this.#call.cancelled);
  }

  onCancel(listener: () => void): void {
    if (this.cancelled) {
      this.#cancelled = true;
      listener();
      return;
    }
    const listeners = this.#listeners;
    if (listeners === undefined) this.#listeners = listener;
    else if (typeof listeners === 'function') this.#listeners = new Set([listeners, listener]);
    else listeners.add(listener);
    this.#subscribe();
  }

  offCancel(listener: () => void): void {
    const listeners = this.#listeners;
    if (listeners === listener) this.#listeners = undefined;
    else if (typeof listeners === 'object') listeners.delete(listener);
  }

  /** The call is answered: a later 'cancelled' is the stream closing, not a cancel. */
  finish(): void {
    this.#finished = true;
  }

  #subscribe(): void {
    if (this.#subscribed) return;
    this.#subscribed = true;
    this.#call.once('cancelled', () => this.#onCancelled());
  }

  #onCancelled(): void {
    if (this.#finished || this.#cancelled) return;
    this.#cancelled = true;
    this.#controller?.abort();
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (typeof listeners === 'function') listeners();
    else if (listeners !== undefined) for (const listener of listeners) listener();
  }
}
