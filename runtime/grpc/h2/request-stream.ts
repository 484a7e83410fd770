/**
 * The request messages of a client-streaming or bidi call on fw's
 * node:http2 engine, as the AsyncIterable its port hands the handler
 * (grpc-call-port.ts `requests`). Decoded messages wait here in order; once
 * HIGH_WATER of them wait, the HTTP/2 stream is paused (its flow control
 * then holds the client back) and resumed as the handler reads. A refused
 * message (RejectedPayload) ends the iteration with INVALID_ARGUMENT when
 * the handler reaches it; a failure (cancel, an undecodable message) ends it
 * at once. Leaving the loop early drops what is left and never touches the
 * reply side.
 */
import { RejectedPayload } from '../../core/json-depth';
import { GrpcStatus } from '../../core/status';
import { GrpcError } from '../errors';

/** Messages held before the HTTP/2 stream is paused (an object-mode stream's default). */
const HIGH_WATER = 16;

type Waiter = { resolve(result: IteratorResult<unknown>): void; reject(error: unknown): void };

export class RequestStream implements AsyncIterable<unknown>, AsyncIterator<unknown> {
  readonly #items: unknown[] = [];
  readonly #resume: () => void;
  #paused = false;
  #ended = false;
  #failure: unknown = undefined;
  /** The handler left its loop: later messages are dropped. */
  #abandoned = false;
  #waiter: Waiter | undefined = undefined;

  /** `resume` restarts the HTTP/2 stream after a push returned false. */
  constructor(resume: () => void) {
    this.#resume = resume;
  }

  /** Queues one message; false when the queue is full (pause the source until `resume`). */
  push(message: unknown): boolean {
    if (this.#ended || this.#abandoned) return true;
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      settle(waiter, message);
      return true;
    }
    this.#items.push(message);
    if (this.#items.length < HIGH_WATER) return true;
    this.#paused = true;
    return false;
  }

  /** The client ended its side: the iteration ends after the queued messages. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiter = this.#waiter;
    if (waiter !== undefined && this.#items.length === 0) {
      this.#waiter = undefined;
      waiter.resolve({ done: true, value: undefined });
    }
  }

  /** Ends the iteration now with `error` (queued messages are dropped); a finished iteration ignores it. */
  fail(error: unknown): void {
    if (this.#ended && this.#items.length === 0) return;
    this.#ended = true;
    this.#failure = error;
    this.#items.length = 0;
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter.reject(error);
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return this;
  }

  next(): Promise<IteratorResult<unknown>> {
    if (this.#items.length > 0) {
      const message = this.#items.shift();
      if (this.#paused && this.#items.length < HIGH_WATER) {
        this.#paused = false;
        this.#resume();
      }
      return message instanceof RejectedPayload ? Promise.reject(refused(message)) : Promise.resolve({ done: false, value: message });
    }
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#ended || this.#abandoned) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  /** The handler left its loop (break, return, throw): drop the rest, let the stream flow again. */
  return(): Promise<IteratorResult<unknown>> {
    this.#abandoned = true;
    this.#items.length = 0;
    if (this.#paused) {
      this.#paused = false;
      this.#resume();
    }
    return Promise.resolve({ done: true, value: undefined });
  }
}

function settle(waiter: Waiter, message: unknown): void {
  if (message instanceof RejectedPayload) waiter.reject(refused(message));
  else waiter.resolve({ done: false, value: message });
}

function refused(message: RejectedPayload): GrpcError {
  return new GrpcError(GrpcStatus.INVALID_ARGUMENT, message.message);
}
