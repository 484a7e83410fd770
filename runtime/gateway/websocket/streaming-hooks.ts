/**
 * The `handleStreaming` hooks of spec 4.10. By default the gateway writes
 * server-stream items as `stream` messages and a `stream_end` itself; an
 * application that wants to shape them passes
 * `handleStreaming: { server(stream, socket, messageId) }` and receives each
 * call's output as a Node stream (`data` per item, `end` when done) to forward
 * as it likes. `handleStreaming.client(socket, messageId)` returns a writable
 * that sees every client-stream item of a call (and is ended by
 * `stream_end`), e.g. to log or mirror uploads; the handler still gets them.
 */
import { PassThrough, type Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import type { EnvelopeReplies } from '../session/envelope-replies';

export interface WebSocketStreamingHooks {
  /** Forward a call's server-stream output yourself: `data` per item, `end` at the end. */
  server?: (stream: NodeJS.ReadableStream, socket: WebSocket, messageId: unknown) => void;
  /** A writable that receives the call's client-stream items; ended by `stream_end`. */
  client?: (socket: WebSocket, messageId: unknown) => Writable;
}

/** The hooks in a `handleStreaming` value, if it carries any. */
export function streamingHooks(value: unknown): WebSocketStreamingHooks | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { server, client } = value as WebSocketStreamingHooks;
  if (typeof server !== 'function' && typeof client !== 'function') return undefined;
  return { server: typeof server === 'function' ? server : undefined, client: typeof client === 'function' ? client : undefined };
}

/** Routes server-stream items and ends to the `server` hook, one object-mode stream per call. */
export function hookedSink(sink: EnvelopeReplies, socket: WebSocket, server: NonNullable<WebSocketStreamingHooks['server']>): EnvelopeReplies {
  const streams = new Map<unknown, PassThrough>();
  const streamOf = (id: unknown): PassThrough => {
    let stream = streams.get(id);
    if (stream === undefined) {
      stream = new PassThrough({ objectMode: true });
      streams.set(id, stream);
      server(stream, socket, id);
    }
    return stream;
  };
  return {
    response: sink.response,
    item: (id, data) => {
      streamOf(id).write(data);
    },
    end: (id) => {
      streamOf(id).end();
      streams.delete(id);
    },
    error: (id, error, traceId, meta) => {
      const stream = streams.get(id);
      if (stream !== undefined) {
        streams.delete(id);
        stream.end();
      }
      sink.error(id, error, traceId, meta);
    },
    // Honour the application's stream as well as the socket: a hook that stops reading slows the handler.
    writable: () => {
      for (const stream of streams.values()) {
        if (stream.writableNeedDrain) return new Promise((resolve) => stream.once('drain', () => resolve()));
      }
      return sink.writable();
    },
  };
}

/** Tees client-stream items of each call into the `client` hook's writable. */
export class ClientStreamTap {
  readonly #hook: NonNullable<WebSocketStreamingHooks['client']>;
  readonly #socket: WebSocket;
  readonly #writables = new Map<unknown, Writable>();

  constructor(hook: NonNullable<WebSocketStreamingHooks['client']>, socket: WebSocket) {
    this.#hook = hook;
    this.#socket = socket;
  }

  push(id: unknown, data: unknown): void {
    let writable = this.#writables.get(id);
    if (writable === undefined) {
      writable = this.#hook(this.#socket, id);
      // An application writable that fails must not take the connection down.
      writable.on('error', () => this.#writables.delete(id));
      this.#writables.set(id, writable);
    }
    if (!writable.destroyed) writable.write(data);
  }

  end(id: unknown): void {
    const writable = this.#writables.get(id);
    this.#writables.delete(id);
    if (writable !== undefined && !writable.destroyed) writable.end();
  }

  /** The client cancelled call `id`: its writable is destroyed, not ended (the stream did not finish). */
  cancel(id: unknown): void {
    const writable = this.#writables.get(id);
    this.#writables.delete(id);
    if (writable !== undefined && !writable.destroyed) writable.destroy();
  }

  close(): void {
    for (const writable of this.#writables.values()) if (!writable.destroyed) writable.end();
    this.#writables.clear();
  }
}
