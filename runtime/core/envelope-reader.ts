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

/**
 * Incremental parser: push chunks, take whole messages. Chunks are kept as
 * they came and joined only once a whole message is there, so a large
 * message arriving in many small chunks is copied once, not once per chunk.
 */
export class LengthPrefixedReader {
  readonly #limit: number;
  readonly #errors: EnvelopeErrors;
  #chunks: Buffer[] = [];
  #length = 0;

  constructor(limit: number, errors: EnvelopeErrors) {
    this.#limit = limit;
    this.#errors = errors;
  }

  /** Appends bytes; throws when the next message announces more than the limit. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    const size = this.#nextSize();
    if (size !== undefined && size > this.#limit) throw this.#errors.tooLarge(size, this.#limit);
  }

  /** The next whole message, or undefined when more bytes are needed. */
  next(): Envelope | undefined {
    const size = this.#nextSize();
    if (size === undefined) return undefined;
    if (size > this.#limit) throw this.#errors.tooLarge(size, this.#limit);
    if (this.#length < 5 + size) return undefined;
    const buffer = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks, this.#length);
    const envelope = { flags: buffer[0] as number, data: buffer.subarray(5, 5 + size) };
    const rest = buffer.length - 5 - size;
    this.#chunks = rest === 0 ? [] : [buffer.subarray(5 + size)];
    this.#length = rest;
    return envelope;
  }

  /** True while bytes of an unfinished message are held. */
  get pending(): boolean {
    return this.#length !== 0;
  }

  /** Throws when the body ended inside a message. */
  finish(): void {
    if (this.#length !== 0) throw this.#errors.truncated();
  }

  /** The length the next message's prefix announces, once its 5 bytes are here. */
  #nextSize(): number | undefined {
    if (this.#length < 5) return undefined;
    let first = this.#chunks[0] as Buffer;
    if (first.length < 5) {
      first = Buffer.concat(this.#chunks, this.#length);
      this.#chunks = [first];
    }
    return first.readUInt32BE(1);
  }
}
