/**
 * A side door on a RequestContext for fw's own code (forwarding): whether the
 * call was cancelled, and a listener for when it is, without building the
 * call's AbortSignal. `context.signal` stays the public way; reading it
 * makes an AbortController and an EventTarget listener per call, which on a
 * forwarded gRPC call was ~6% of the gateway's CPU. Contexts that have
 * nothing cheaper leave it out, and callers fall back to the signal.
 */
export const CANCELLATION: unique symbol = Symbol('fw.cancellation');

export interface Cancellation {
  /** True once the caller cancelled (or the call's deadline passed), as `signal.aborted` would say. */
  readonly cancelled: boolean;
  /** Runs `listener` once when the call is cancelled (at once if it already is). */
  onCancel(listener: () => void): void;
  /** Stops running `listener`. */
  offCancel(listener: () => void): void;
}

/** A context that may carry the side door. */
export type MaybeCancellable = { readonly [CANCELLATION]?: Cancellation };
