/**
 * How calls are read off a WebSocket connection: each message is decoded in
 * the connection's format (codec.ts; `binary` as a frame), mapped by
 * `routeMessage`, and routed to the session — a request, a client-stream
 * item (`{id, type: 'stream', data}`) or end (`stream_end`), or a `cancel`.
 * The `handleStreaming.client` tap sees client-stream items on the way.
 * A message that cannot be read gets an error reply; nothing throws.
 */
import { ServiceErrors, toServiceError } from '../errors';
import type { CallSession, EnvelopeRequest } from '../session/call-session';
import type { EnvelopeReplies } from '../session/envelope-replies';
import { decodeFrame } from '../wire/frame-codec';
import { handleFrame } from '../wire/frame-replies';
import { decodeEnvelope, type WebSocketMessageFormat } from './codec';
import type { ClientStreamTap } from './streaming-hooks';

/** What reading a connection's messages needs. */
export interface WebSocketCallReader {
  readonly format: WebSocketMessageFormat;
  readonly maxPayload: number;
  readonly routeMessage: ((message: Record<string, unknown>) => Partial<EnvelopeRequest> | undefined) | undefined;
  readonly session: CallSession;
  readonly replies: EnvelopeReplies;
  readonly tap: ClientStreamTap | undefined;
}

/** Reads one message's bytes into the session. */
export function readMessage(reader: WebSocketCallReader, bytes: Buffer, isBinary: boolean): void {
  const { format, session, tap } = reader;
  try {
    if (format === 'binary') {
      if (!isBinary) throw ServiceErrors.badRequest('This connection speaks the binary frame format');
      handleFrame(decodeFrame(bytes, reader.maxPayload), session, reader.replies);
      return;
    }
    let message = decodeEnvelope(format, bytes);
    if (reader.routeMessage !== undefined) {
      const routed = reader.routeMessage(message);
      if (routed !== undefined && routed !== null) message = { ...message, ...routed };
    }
    if (message.type === 'stream') {
      tap?.push(message.id, message.data);
      session.push(message.id, message.data);
    } else if (message.type === 'stream_end') {
      tap?.end(message.id);
      session.end(message.id);
    } else if (message.type === 'cancel') {
      tap?.cancel(message.id);
      session.cancel(message.id);
    } else session.start(message as EnvelopeRequest);
  } catch (e) {
    reader.replies.error(undefined, toServiceError(e), undefined);
  }
}
