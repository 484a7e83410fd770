/**
 * The replies of one call, queued until the caller's loop takes them, or the
 * error that ended the call. `take()` rejects with that error once the
 * queued replies are gone.
 */
export class Inbox<T> {
  #items: T[] = [];
  #failure: Error | undefined = undefined;
  #onFail: ((error: Error) => void)[] = [];
  #waiter: { resolve: (item: T) => void; reject: (error: Error) => void } | undefined = undefined;

  push(item: T): void {
    if (this.#failure !== undefined) return;
    const w = this.#waiter;
    this.#waiter = undefined;
    if (w !== undefined) w.resolve(item);
    else this.#items.push(item);
  }

  /** Ends the call with `error`; the first failure wins. */
  fail(error: Error): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#items.length = 0;
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.reject(error);
    for (const reject of this.#onFail.splice(0)) reject(error);
  }

  /** A promise that rejects with the failure once there is one (it never resolves). */
  failure(): Promise<never> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((_, reject) => this.#onFail.push(reject));
  }

  get failed(): boolean {
    return this.#failure !== undefined;
  }

  take(): Promise<T> {
    if (this.#items.length > 0) return Promise.resolve(this.#items.shift() as T);
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }
}
