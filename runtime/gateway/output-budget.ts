/**
 * The gateway-wide cap on output buffered for clients that do not read
 * (slow consumers), on top of each connection's own cap. Each connection's
 * limit bounds one client; this bounds N of them: when the bytes queued for
 * stalled connections together pass `maxBytes`, the connections holding the
 * most are cut (with a clear close reason) until the total is back under it.
 * Only connections past a small threshold are watched, so a gateway whose
 * clients all read does no bookkeeping.
 */
import type { Protocol } from '../core/request-context';

/** A connection whose unread output the budget can see and cut. */
export interface BufferedOutput {
  readonly protocol: Protocol;
  readonly connectionId: string;
  /** Bytes queued for the peer in user space now. */
  bufferedBytes(): number;
  /** Ends the connection, telling the peer `reason` if it still reads. */
  cut(reason: string): void;
}

/** Told of every connection cut, for metrics and logs. */
export type OutputCutListener = (output: BufferedOutput, bufferedBytes: number, totalBytes: number, limitBytes: number) => void;

/** Output below this per connection is not a stall worth tracking. */
const WATCH_BYTES = 64 << 10;

/** Default gateway-wide cap: 128 MiB. */
export const DEFAULT_MAX_BUFFERED_OUTPUT = 128 << 20;

export class OutputBudget {
  readonly maxBytes: number;
  readonly #watched = new Set<BufferedOutput>();
  readonly #onCut: OutputCutListener;
  #cuts = 0;

  constructor(maxBytes: number, onCut: OutputCutListener) {
    if (!Number.isFinite(maxBytes) || maxBytes <= 0) throw new TypeError(`maxBufferedOutputBytes must be a positive number, got ${String(maxBytes)}`);
    this.maxBytes = maxBytes;
    this.#onCut = onCut;
  }

  /** Connections cut so far. */
  get cuts(): number {
    return this.#cuts;
  }

  /** Bytes now queued for the watched (stalled) connections. */
  totalBytes(): number {
    let total = 0;
    for (const output of this.#watched) {
      const bytes = output.bufferedBytes();
      if (bytes < WATCH_BYTES) this.#watched.delete(output);
      else total += bytes;
    }
    return total;
  }

  /** After a write to `output`: watch it if it is backing up, and enforce the cap. */
  note(output: BufferedOutput, bufferedBytes: number): void {
    if (bufferedBytes < WATCH_BYTES) return;
    this.#watched.add(output);
    let total = this.totalBytes();
    if (total <= this.maxBytes) return;
    // Cut the slowest (most bytes waiting) first, until back under the cap.
    const bySize = [...this.#watched].map((o) => ({ o, bytes: o.bufferedBytes() })).sort((a, b) => b.bytes - a.bytes);
    for (const { o, bytes } of bySize) {
      if (total <= this.maxBytes) break;
      this.#watched.delete(o);
      total -= bytes;
      this.#cuts++;
      o.cut(`slow consumer: ${bytes} bytes unread while the gateway's output buffers passed their ${this.maxBytes}-byte cap`);
      this.#onCut(o, bytes, total + bytes, this.maxBytes);
    }
  }

  /** The connection closed. */
  forget(output: BufferedOutput): void {
    this.#watched.delete(output);
  }
}
