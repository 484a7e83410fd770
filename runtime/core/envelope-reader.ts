/**
 * The one reader of length-prefixed messages (`flags u8 | length u32 BE |
 * message`): gRPC over HTTP/2, gRPC-Web and Connect streaming all frame
 * messages this way. Reading is incremental and bounded: a message longer
 * than the limit is refused on its prefix, before its bytes are buffered,
 * and a body that stops inside a message is an error, never a short stream.
 * Each caller chooses the errors (gateway ServiceError, gRPC status).
 */
import type { Buffer } from 'node:buffer';
import { PrefixedFrameReader } from './prefixed-frame-reader';

/** One length-prefixed message. */
export interface Envelope {
  flags: number;
  data: Buffer;
}

/** How a reader reports the two ways a byte stream can be refused. */
export interface EnvelopeErrors {
  tooLarge(size: number, limit: number): Error;
  truncated(): Error;
}

/**
 * Incremental parser: push chunks, take whole messages. Messages are split
 * off as their bytes arrive (PrefixedFrameReader), so what a reader holds
 * follows the bytes received, however small the chunks.
 */
export class LengthPrefixedReader {
  readonly #frames: PrefixedFrameReader;
  readonly #errors: EnvelopeErrors;
  /** Whole messages not yet taken by `next()`. */
  #ready: Envelope[] = [];
  #readyHead = 0;
  readonly #sink = (header: Buffer, offset: number, data: Buffer): void => {
    this.#ready.push({ flags: header[offset] as number, data });
  };

  constructor(limit: number, errors: EnvelopeErrors) {
    this.#errors = errors;
    this.#frames = new PrefixedFrameReader(5, (bytes, offset) => {
      const size = bytes.readUInt32BE(offset + 1);
      if (size > limit) throw errors.tooLarge(size, limit);
      return size;
    });
  }

  /** Appends bytes; throws when a message announces more than the limit. */
  push(chunk: Buffer): void {
    this.#frames.push(chunk, this.#sink);
  }

  /** The next whole message, or undefined when more bytes are needed. */
  next(): Envelope | undefined {
    if (this.#readyHead === this.#ready.length) return undefined;
    const envelope = this.#ready[this.#readyHead++] as Envelope;
    if (this.#readyHead === this.#ready.length) {
      this.#ready = [];
      this.#readyHead = 0;
    }
    return envelope;
  }

  /** Whole messages waiting to be taken. */
  get ready(): number {
    return this.#ready.length - this.#readyHead;
  }

  /** True while a message not yet taken, or part of one, is held. */
  get pending(): boolean {
    return this.ready !== 0 || this.#frames.partial;
  }

  /** Throws when the body ended inside a message. */
  finish(): void {
    if (this.#frames.partial) throw this.#errors.truncated();
  }
}
