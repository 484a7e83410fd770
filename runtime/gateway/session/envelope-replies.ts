/**
 * The reply side of a connection that carries many calls (WebSocket, TCP;
 * UDP's datagrams too): envelopes addressed by the call's `id`, each
 * echoing its `traceId`. Each of those transports' reply-sink.ts builds one
 * per connection; the session binds a per-call ReplySink over it
 * (envelope-call.ts), and a refusal that comes before any call exists
 * (a malformed envelope, an unknown stream id) is written here directly.
 */
import { catalogueError, type ServiceError } from '../errors';
import type { EnvelopeMetadata } from '../wire/envelope-metadata';

/** How a multiplexed transport writes envelopes. `meta` carries the handler's headers and trailers. */
export interface EnvelopeReplies {
  response(id: unknown, method: string, data: unknown, traceId: string, meta?: EnvelopeMetadata): void;
  item(id: unknown, data: unknown, traceId: string, meta?: EnvelopeMetadata): void;
  end(id: unknown, traceId: string, meta?: EnvelopeMetadata): void;
  error(id: unknown, error: ServiceError, traceId: string | undefined, meta?: EnvelopeMetadata): void;
  /** A promise while the peer is not reading (backpressure); undefined when writing may go on. */
  writable(): Promise<void> | undefined;
}

/**
 * Wraps replies so that one which cannot be encoded (BigInt, circular data
 * in a result or in error details) becomes a plain error reply instead of an
 * exception escaping into a promise callback. A stream item that cannot be
 * encoded still throws after its error reply, so the stream stops.
 */
export function safeReplies(replies: EnvelopeReplies): EnvelopeReplies {
  const fallback = (id: unknown, traceId: string | undefined): void => {
    try {
      replies.error(typeof id === 'string' || typeof id === 'number' ? id : undefined, catalogueError('INTERNAL_ERROR', 'Reply could not be encoded'), traceId);
    } catch {
      // Nothing more can be said on this connection.
    }
  };
  return {
    response: (id, method, data, traceId, meta) => {
      try {
        replies.response(id, method, data, traceId, meta);
      } catch {
        fallback(id, traceId);
      }
    },
    item: (id, data, traceId, meta) => {
      try {
        replies.item(id, data, traceId, meta);
      } catch {
        fallback(id, traceId);
        throw catalogueError('INTERNAL_ERROR', 'Stream item could not be encoded');
      }
    },
    end: (id, traceId, meta) => {
      try {
        replies.end(id, traceId, meta);
      } catch {
        fallback(id, traceId);
      }
    },
    error: (id, error, traceId, meta) => {
      try {
        replies.error(id, error, traceId, meta);
      } catch {
        fallback(id, traceId);
      }
    },
    writable: () => replies.writable(),
  };
}
