/**
 * A gRPC call's cancellation as the gateway's handlers see it. The abort
 * signal is made on first read: most unary handlers never look at it, so
 * most calls build no AbortController and add no listener. fw's own
 * forwarding asks through the Cancellation side door instead
 * (core/cancellation.ts), which needs neither. grpc-js emits 'cancelled'
 * after completed calls too; `finish()` (run once the answer is handed over)
 * turns that into a no-op.
 */
import type { Cancellation } from '../../core/cancellation';
import { addListener, removeListener, runListeners, type ListenerSlot } from '../../core/listener-slot';

/** What the watch reads of a call (grpc-js's server calls and fw's node:http2 ones alike). */
/** A served call that reports its cancellation (fw's call port, or a grpc-js call). */
type CancellableCall = { once(event: 'cancelled', listener: () => void): unknown; readonly cancelled: boolean };

export class CancelWatch implements Cancellation {
  readonly #call: CancellableCall;
  #controller: AbortController | undefined = undefined;
  #listeners: ListenerSlot = undefined;
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
    this.#listeners = addListener(this.#listeners, listener);
    this.#subscribe();
  }

  offCancel(listener: () => void): void {
    this.#listeners = removeListener(this.#listeners, listener);
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
    runListeners(listeners);
  }
}
