/**
 * Splits a byte stream into frames that start with a fixed-size header
 * announcing the payload's length: the 5-byte envelope of gRPC, gRPC-Web and
 * Connect, and the 6-byte frame of fw's TCP protocol. Memory follows the
 * bytes received: a payload that arrives in one chunk is passed on as a view
 * of it, any other is gathered by a ByteAccumulator, and nothing is ever
 * allocated for what a header merely announces.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import { ByteAccumulator } from './byte-accumulator';

/**
 * Reads a header at `offset` of `bytes` and returns the payload length it
 * announces; throws to refuse the header (wrong version, over the limit).
 */
export type PayloadLengthOf = (bytes: Buffer, offset: number) => number;

/** Receives one whole frame: its header at `offset` of `header` (valid during the call only), and its payload. */
export type FrameSink = (header: Buffer, offset: number, payload: Buffer) => void;

export class PrefixedFrameReader {
  readonly #headerBytes: number;
  readonly #payloadLength: PayloadLengthOf;
  /** A header that arrived split across chunks is gathered here. */
  readonly #header: Buffer;
  #headerHeld = 0;
  /** Length of the payload being read; -1 while its header is incomplete. */
  #size = -1;
  readonly #payload = new ByteAccumulator();

  constructor(headerBytes: number, payloadLength: PayloadLengthOf) {
    this.#headerBytes = headerBytes;
    this.#payloadLength = payloadLength;
    this.#header = Buffer.alloc(headerBytes);
  }

  /** True while part of a frame (header or payload) is held. */
  get partial(): boolean {
    return this.#headerHeld !== 0 || this.#size !== -1;
  }

  /** Bytes of the unfinished frame held. */
  get held(): number {
    return this.#headerHeld + (this.#size === -1 ? 0 : this.#headerBytes) + this.#payload.length;
  }

  /**
   * Feeds bytes; calls `sink` for every frame they complete, in order.
   * Throws what `payloadLength` throws; the reader is then unusable.
   */
  push(chunk: Buffer, sink: FrameSink): void {
    const headerBytes = this.#headerBytes;
    const end = chunk.length;
    let offset = 0;
    while (offset < end) {
      let header = this.#header;
      let headerAt = 0;
      if (this.#size === -1) {
        if (this.#headerHeld === 0 && end - offset >= headerBytes) {
          // The header lies whole in this chunk: read it in place.
          header = chunk;
          headerAt = offset;
          this.#size = this.#payloadLength(chunk, offset);
          offset += headerBytes;
          if (end - offset >= this.#size) {
            const payload = chunk.subarray(offset, offset + this.#size);
            offset += this.#size;
            this.#size = -1;
            sink(header, headerAt, payload);
            continue;
          }
          // Keep the header for when the payload completes.
          chunk.copy(this.#header, 0, headerAt, headerAt + headerBytes);
          header = this.#header;
          headerAt = 0;
        } else {
          const copied = chunk.copy(this.#header, this.#headerHeld, offset, Math.min(end, offset + headerBytes - this.#headerHeld));
          this.#headerHeld += copied;
          offset += copied;
          if (this.#headerHeld < headerBytes) return;
          this.#headerHeld = 0;
          this.#size = this.#payloadLength(this.#header, 0);
        }
      }
      const missing = this.#size - this.#payload.length;
      const take = Math.min(missing, end - offset);
      if (take > 0) this.#payload.push(offset === 0 && take === end ? chunk : chunk.subarray(offset, offset + take));
      offset += take;
      if (take < missing) return;
      this.#size = -1;
      sink(header, headerAt, this.#payload.take());
    }
  }
}
