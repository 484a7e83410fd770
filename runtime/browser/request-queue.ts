/**
 * A push-style request source for client and bidi streams: a UI sends
 * messages as the user acts (`push`), then `end()`s; the call reads it as
 * the async iterable it takes.
 */

/** An async iterable fed by `push` and finished by `end`. */
export interface RequestQueue<T> extends AsyncIterable<T> {
  push(message: T): void;
  end(): void;
}

/**
 * Creates a RequestQueue.
 * @example
 * const input = createRequestQueue<ChatMessage>();
 * for await (const reply of client.chat(input)) show(reply);
 * input.push({ text: 'hi' }); // from a click handler
 */
export function createRequestQueue<T>(): RequestQueue<T> {
  const items: T[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  return {
    push(message) {
      if (ended) return;
      items.push(message);
      notify();
    },
    end() {
      ended = true;
      notify();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (items.length > 0) yield items.shift() as T;
        else if (ended) return;
        else await new Promise<void>((r) => (wake = r));
      }
    },
  };
}
