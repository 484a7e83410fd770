/**
 * Collects the bytes of one body or message so that the memory it holds
 * follows the number of bytes received, not the number of chunks they came
 * in. A client that sends a body one byte at a time (one-byte TCP segments,
 * one-byte HTTP/2 DATA frames, base64 quads) would otherwise leave one Buffer
 * object per byte, a few hundred bytes of heap each. Small chunks are copied
 * into blocks that grow with the data (1 KiB up to 16 KiB), chunks of 16 KiB
 * or more are kept as they are, and a body that arrives as one chunk is never
 * copied. What is held stays within about twice the bytes received.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';

/** Chunks at least this long are kept, not copied; also the largest block. */
const KEEP_WHOLE = 16 * 1024;
const SMALLEST_BLOCK = 1024;

const EMPTY = Buffer.alloc(0);

export class ByteAccumulator {
  /** Bytes in order: kept chunks and filled (or sealed) blocks. */
  #parts: Buffer[] = [];
  /** The block small chunks are copied into, filled up to `#used`. */
  #block: Buffer | undefined = undefined;
  #used = 0;
  #length = 0;
  /** True while `#parts` holds only the first chunk, uncopied. */
  #firstKept = false;

  /** Bytes held. */
  get length(): number {
    return this.#length;
  }

  push(chunk: Buffer): void {
    const size = chunk.length;
    if (size === 0) return;
    if (this.#length === 0) {
      // The common case, a body in one chunk: keep it, copy nothing.
      this.#parts.push(chunk);
      this.#length = size;
      this.#firstKept = true;
      return;
    }
    if (this.#firstKept) {
      this.#firstKept = false;
      const first = this.#parts[0] as Buffer;
      if (first.length < KEEP_WHOLE) {
        this.#parts.length = 0;
        this.#copyIn(first);
      }
    }
    if (size >= KEEP_WHOLE) {
      this.#seal();
      this.#parts.push(chunk);
    } else {
      this.#copyIn(chunk);
    }
    this.#length += size;
  }

  /** Everything held, as one Buffer; the accumulator is empty afterwards. */
  take(): Buffer {
    this.#seal();
    const parts = this.#parts;
    const whole = parts.length === 0 ? EMPTY : parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, this.#length);
    this.#parts = [];
    this.#length = 0;
    this.#firstKept = false;
    return whole;
  }

  #copyIn(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      let block = this.#block;
      if (block === undefined || this.#used === block.length) {
        this.#seal();
        // Blocks grow with what is held, so a small body costs a small block.
        block = this.#block = Buffer.allocUnsafe(Math.min(KEEP_WHOLE, Math.max(SMALLEST_BLOCK, this.#length)));
        this.#used = 0;
      }
      const copied = chunk.copy(block, this.#used, offset);
      this.#used += copied;
      offset += copied;
    }
  }

  /** Moves the current block's filled part into `#parts`. */
  #seal(): void {
    const block = this.#block;
    if (block === undefined) return;
    if (this.#used > 0) this.#parts.push(this.#used === block.length ? block : block.subarray(0, this.#used));
    this.#block = undefined;
    this.#used = 0;
  }
}
