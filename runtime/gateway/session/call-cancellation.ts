/**
 * One envelope call's cancellation (WebSocket, TCP): aborted by the client's
 * cancel message, the call's timeout or the connection closing. Its
 * AbortSignal is created on first read — most handlers never read
 * `context.signal`, and an AbortController per call costs the hot path
 * (as HttpCallContext's signal, http-exchange.ts).
 */
export class CallCancellation {
  readonly #connection: AbortSignal;
  #controller: AbortController | undefined = undefined;
  #aborted = false;
  #reason: unknown = undefined;

  /** `connection`: the session's signal, read when this call's signal is first made. */
  constructor(connection: AbortSignal) {
    this.#connection = connection;
  }

  /** True once cancelled, whether or not a signal was made. */
  get aborted(): boolean {
    return this.#aborted || this.#connection.aborted;
  }

  /** The call's signal, made on first read (already aborted when the call or the connection was). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
      else if (this.#connection.aborted) this.#controller.abort(this.#connection.reason);
    }
    return this.#controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}
