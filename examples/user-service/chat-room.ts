/**
 * A broadcast room for ChatWithUsers: every participant gets every message.
 * Each participant's inbox is a bounded queue; a participant that stops
 * reading drops its oldest messages instead of growing memory.
 */
import type { ChatMessage } from '../../generated/user';

const INBOX_LIMIT = 1000;

/** One participant's incoming messages, consumed with `for await`. */
export class Inbox implements AsyncIterable<ChatMessage> {
  readonly #items: ChatMessage[] = [];
  #waiting: ((r: IteratorResult<ChatMessage>) => void) | undefined = undefined;
  #closed = false;

  /** Queues a message (or hands it to a waiting reader). */
  push(message: ChatMessage): void {
    if (this.#closed) return;
    const wake = this.#waiting;
    if (wake !== undefined) {
      this.#waiting = undefined;
      wake({ value: message, done: false });
      return;
    }
    if (this.#items.length >= INBOX_LIMIT) this.#items.shift();
    this.#items.push(message);
  }

  /** Ends iteration once queued messages are read. */
  close(): void {
    this.#closed = true;
    const wake = this.#waiting;
    this.#waiting = undefined;
    wake?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatMessage> {
    return {
      next: () => {
        const item = this.#items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiting = resolve;
        });
      },
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/**
 * The set of connected participants.
 * @example
 * const room = new ChatRoom();
 * const inbox = room.join();
 * room.broadcast({ userId: 'u1', message: 'hi', timestamp: new Date() });
 */
export class ChatRoom {
  readonly #members = new Set<Inbox>();

  /** Adds a participant. */
  join(): Inbox {
    const inbox = new Inbox();
    this.#members.add(inbox);
    return inbox;
  }

  /** Removes a participant and ends its inbox. */
  leave(inbox: Inbox): void {
    this.#members.delete(inbox);
    inbox.close();
  }

  /** Sends `message` to every participant. */
  broadcast(message: ChatMessage): void {
    for (const member of this.#members) member.push(message);
  }

  /** Number of connected participants. */
  get size(): number {
    return this.#members.size;
  }
}
