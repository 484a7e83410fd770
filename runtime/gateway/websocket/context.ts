/**
 * RequestContext for a WebSocket call: client from the upgrade request,
 * the upgrade's headers, metadata with the connection and message ids.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import { createContext } from '../gateway-core';
import type { EnvelopeRequest } from '../session/call-session';

/** Builds the RequestContext of one WebSocket call. */
export function websocketContext(
  req: IncomingMessage,
  connectionId: string,
  message: EnvelopeRequest,
  tracing: TracingInfo,
  signal: AbortSignal,
): RequestContext {
  const address = req.socket.remoteAddress ?? '';
  const port = req.socket.remotePort ?? 0;
  const extra = message.metadata !== null && typeof message.metadata === 'object' ? (message.metadata as Record<string, unknown>) : {};
  return createContext(
    'websocket',
    { id: connectionId, address, port, userAgent: req.headers['user-agent'], version: req.headers['sec-websocket-version'] as string | undefined },
    req.headers as Record<string, string>,
    { ...extra, connectionId, messageId: message.id, path: req.url },
    tracing,
    signal,
  );
}
