/**
 * A bounded push/pull queue exposed as an AsyncIterable: how a transport turns
 * incoming client-stream messages into the `AsyncIterable` handlers consume.
 */

/** Pushes beyond `capacity` unconsumed items fail, so a slow handler cannot make memory grow without bound. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  readonly #capacity: number;
  #waiter: ((r: IteratorResult<T>) => void) | undefined = undefined;
  #failer: ((e: unknown) => void) | undefined = undefined;
  #ended = false;
  #error: unknown = undefined;
  #iterated = false;

  constructor(capacity = 1024) {
    this.#capacity = capacity;
  }

  /** False when the queue is full or already ended (the caller reports the overflow). */
  push(item: T): boolean {
    if (this.#ended) return false;
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      this.#failer = undefined;
      waiter({ value: item, done: false });
      return true;
    }
    if (this.#items.length >= this.#capacity) return false;
    this.#items.push(item);
    return true;
  }

  /** No more items; the iterator finishes after draining. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    this.#failer = undefined;
    waiter?.({ value: undefined, done: true });
  }

  /** Ends the stream with an error the consumer sees on its next pull. */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    const failer = this.#failer;
    this.#waiter = undefined;
    this.#failer = undefined;
    failer?.(error);
  }

  get ended(): boolean {
    return this.#ended;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterated) throw new Error('stream already consumed');
    this.#iterated = true;
    return {
      next: (): Promise<IteratorResult<T>> => {
        if (this.#items.length > 0) return Promise.resolve({ value: this.#items.shift() as T, done: false });
        if (this.#ended) return this.#error === undefined ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(this.#error);
        return new Promise((resolve, reject) => {
          this.#waiter = resolve;
          this.#failer = reject;
        });
      },
      return: (): Promise<IteratorResult<T>> => {
        this.#ended = true;
        this.#items.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
