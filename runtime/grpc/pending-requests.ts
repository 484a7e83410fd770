/**
 * Unary and server-streaming requests that must be complete (END_STREAM)
 * within `timeoutMs` (the `requestTimeout` limit, on both server engines),
 * else their stream is reset with CANCEL. The entries form a list in arrival
 * order through their own fields — fw's node:http2 calls are their own
 * entries, so a call joins and leaves without a Map entry or an allocation;
 * the grpc-js engine adds a small entry per stream. Arrival is stamped with
 * a clock the sweep timer advances, not `Date.now()`. The sweep walks from
 * the oldest entry and stops at the first one still in time.
 */
import http2, { type ServerHttp2Stream } from 'node:http2';

/** The fields a call carries for the list. */
export interface PendingRequest {
  readonly stream: ServerHttp2Stream;
  pendingSince: number;
  pendingPrev: PendingRequest | undefined;
  pendingNext: PendingRequest | undefined;
  /** True while in a list (a call leaves it once). */
  pendingListed: boolean;
}

export class PendingRequests {
  readonly #timeoutMs: number;
  readonly #periodMs: number;
  readonly #timer: NodeJS.Timeout;
  #head: PendingRequest | undefined = undefined;
  #tail: PendingRequest | undefined = undefined;
  /** Milliseconds since the epoch as of the last sweep tick (requests are stamped with it). */
  #now = Date.now();

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    // A quarter of the timeout, 25 ms to 1 s: a reset comes at most two periods late.
    this.#periodMs = Math.max(25, Math.min(1000, Math.floor(timeoutMs / 4)));
    this.#timer = setInterval(() => this.#sweep(), this.#periodMs);
    this.#timer.unref();
  }

  watch(call: PendingRequest): void {
    call.pendingSince = this.#now;
    call.pendingPrev = this.#tail;
    call.pendingNext = undefined;
    call.pendingListed = true;
    if (this.#tail === undefined) this.#head = call;
    else this.#tail.pendingNext = call;
    this.#tail = call;
  }

  /** The request of `call` is complete (or no longer matters); a call not in the list is ignored. */
  release(call: PendingRequest): void {
    if (!call.pendingListed) return;
    call.pendingListed = false;
    const { pendingPrev: prev, pendingNext: next } = call;
    if (prev === undefined) this.#head = next;
    else prev.pendingNext = next;
    if (next === undefined) this.#tail = prev;
    else next.pendingPrev = prev;
    call.pendingPrev = undefined;
    call.pendingNext = undefined;
  }

  stop(): void {
    clearInterval(this.#timer);
    while (this.#head !== undefined) this.release(this.#head);
  }

  #sweep(): void {
    this.#now = Date.now();
    // A stamp is up to one period before the real arrival: counting that period in means no reset comes early.
    const cutoff = this.#now - this.#timeoutMs - this.#periodMs;
    for (let call = this.#head; call !== undefined && call.pendingSince <= cutoff; call = this.#head) {
      this.release(call);
      const stream = call.stream;
      // Done already: END_STREAM arrived, or it was answered or closed.
      if (stream.destroyed || stream.headersSent || stream.state.remoteClose === 1) continue;
      stream.close(http2.constants.NGHTTP2_CANCEL);
    }
  }
}
