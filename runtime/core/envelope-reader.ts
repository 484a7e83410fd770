/**
 * The one reader of length-prefixed messages (`flags u8 | length u32 BE |
 * message`): gRPC over HTTP/2, gRPC-Web and Connect streaming all frame
 * messages this way. Reading is incremental and bounded: a message longer
 * than the limit is refused on its prefix, before its bytes are buffered,
 * and a body that stops inside a message is an error, never a short stream.
 * Each caller chooses the errors (gateway ServiceError, gRPC status).
 */
import { Buffer } from 'node:buffer';

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

const EMPTY = Buffer.alloc(0);

/** Incremental parser: push chunks, take whole messages. */
export class LengthPrefixedReader {
  readonly #limit: number;
  readonly #errors: EnvelopeErrors;
  #buffer: Buffer = EMPTY;

  constructor(limit: number, errors: EnvelopeErrors) {
    this.#limit = limit;
    this.#errors = errors;
  }

  /** Appends bytes; throws when the next message announces more than the limit. */
  push(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    if (this.#buffer.length >= 5) {
      const size = this.#buffer.readUInt32BE(1);
      if (size > this.#limit) throw this.#errors.tooLarge(size, this.#limit);
    }
  }

  /** The next whole message, or undefined when more bytes are needed. */
  next(): Envelope | undefined {
    const buffer = this.#buffer;
    if (buffer.length < 5) return undefined;
    const size = buffer.readUInt32BE(1);
    if (size > this.#limit) throw this.#errors.tooLarge(size, this.#limit);
    if (buffer.length < 5 + size) return undefined;
    const envelope = { flags: buffer[0] as number, data: buffer.subarray(5, 5 + size) };
    this.#buffer = buffer.length === 5 + size ? EMPTY : buffer.subarray(5 + size);
    return envelope;
  }

  /** True while bytes of an unfinished message are held. */
  get pending(): boolean {
    return this.#buffer.length !== 0;
  }

  /** Throws when the body ended inside a message. */
  finish(): void {
    if (this.#buffer.length !== 0) throw this.#errors.truncated();
  }
}
