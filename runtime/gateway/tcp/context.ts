/**
 * RequestContext for a TCP frame call: client from the socket, no headers,
 * metadata with the connection and call ids plus the envelope's `metadata`.
 */
import type { Socket } from 'node:net';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import { createContext } from '../gateway-core';
import type { EnvelopeRequest } from '../session/call-session';

/** Builds the RequestContext of one TCP frame call. */
export function tcpContext(socket: Socket, connectionId: string, message: EnvelopeRequest, tracing: TracingInfo, signal: AbortSignal): RequestContext {
  const address = socket.remoteAddress ?? '';
  const port = socket.remotePort ?? 0;
  const extra = message.metadata !== null && typeof message.metadata === 'object' ? (message.metadata as Record<string, unknown>) : {};
  return createContext('tcp', { id: connectionId, address, port }, {}, { ...extra, connectionId, messageId: message.id }, tracing, signal);
}
