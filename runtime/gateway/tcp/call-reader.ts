/**
 * How calls are read off a TCP frame connection: bytes are split into frames
 * (wire/frame-codec.ts) as they arrive and each frame goes to the session
 * (request, client-stream item or end, cancel). A malformed header or an
 * oversized length gets an error frame and ends the connection (framing is
 * lost); a bad JSON payload inside a well-formed frame only fails that frame.
 * Slow senders: a frame once started must be complete within `frameTimeout`,
 * and the partial frames of all connections together may hold at most
 * `maxPartial` bytes.
 */
import { catalogueError, type ServiceError } from '../errors';
import type { CallSession } from '../session/call-session';
import type { EnvelopeReplies } from '../session/envelope-replies';
import { BAD_HEADER, FrameReader } from '../wire/frame-codec';
import { handleFrame } from '../wire/frame-replies';

/** Bytes held in partial frames, every connection of a transport together. */
export interface PartialFrameBytes {
  bytes: number;
}

/** The reader's bounds. */
export interface TcpReadLimits {
  readonly maxFrameSize: number;
  readonly frameTimeout: number;
  readonly maxPartial: number;
}

/** Reads one connection's frames into its session. */
export class TcpCallReader {
  readonly #session: CallSession;
  readonly #replies: EnvelopeReplies;
  readonly #limits: TcpReadLimits;
  readonly #partial: PartialFrameBytes;
  /** Ends the connection (our FIN) and stops reading: the peer is refused or framing is lost. */
  readonly #stop: () => void;
  readonly #reader: FrameReader;
  /** This connection's share of the partial bytes. */
  #held = 0;
  #frameTimer: NodeJS.Timeout | undefined = undefined;

  constructor(session: CallSession, replies: EnvelopeReplies, limits: TcpReadLimits, partial: PartialFrameBytes, stop: () => void) {
    this.#session = session;
    this.#replies = replies;
    this.#limits = limits;
    this.#partial = partial;
    this.#stop = stop;
    this.#reader = new FrameReader(limits.maxFrameSize);
  }

  /** Bytes the connection sent. */
  push(chunk: Buffer): void {
    const frames = this.#reader.push(chunk);
    this.#account();
    for (const frame of frames) {
      handleFrame(frame, this.#session, this.#replies);
      if (frame.type === BAD_HEADER) {
        // Framing is lost: the error frame above is the last word.
        this.#stop();
        return;
      }
    }
    const { maxPartial, frameTimeout } = this.#limits;
    if (this.#partial.bytes > maxPartial) {
      this.#refuse(catalogueError('RESOURCE_EXHAUSTED', `Incomplete frames of all connections exceed ${maxPartial} bytes`, { limit: maxPartial }));
      return;
    }
    if (this.#held === 0 || frames.length > 0) {
      clearTimeout(this.#frameTimer);
      this.#frameTimer = undefined;
    }
    if (this.#held > 0 && this.#frameTimer === undefined && frameTimeout > 0) {
      this.#frameTimer = setTimeout(() => this.#refuse(catalogueError('FRAME_TIMEOUT', `A frame was not completed within ${frameTimeout} ms`, { frameTimeout })), frameTimeout);
    }
  }

  /** The connection closed: its partial bytes no longer count. */
  close(): void {
    clearTimeout(this.#frameTimer);
    this.#partial.bytes -= this.#held;
    this.#held = 0;
  }

  #account(): void {
    this.#partial.bytes += this.#reader.buffered - this.#held;
    this.#held = this.#reader.buffered;
  }

  #refuse(error: ServiceError): void {
    clearTimeout(this.#frameTimer);
    // The peer is refused: the error frame is the last word.
    this.#replies.error(undefined, error, undefined);
    this.#stop();
  }
}
