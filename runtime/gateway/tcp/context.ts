/**
 * RequestContext for a TCP frame call: client from the socket, no headers,
 * metadata with the connection and call ids plus the envelope's `metadata`.
 */
import { envelopeMetadataText, incomingFromHeaders } from '../../core/call-metadata';
import type { Socket } from 'node:net';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import { createContext } from '../gateway-core';
import type { EnvelopeRequest } from '../session/call-session';

/**
 * The context builder of one connection. The peer is read on the first call
 * and kept (remoteAddress/remotePort are getters with a megamorphic lookup
 * inside, and net.Socket caches the peer anyway); while the address is still
 * unknown it is read again on every call, as before. Every call still gets
 * its own client object.
 */
export function tcpContexts(socket: Socket, connectionId: string): (message: EnvelopeRequest, tracing: TracingInfo, signal: AbortSignal | (() => AbortSignal)) => RequestContext {
  let address = '';
  let port = 0;
  return (message, tracing, signal) => {
    if (address === '') {
      address = socket.remoteAddress ?? '';
      port = socket.remotePort ?? 0;
    }
    const extra = message.metadata !== null && typeof message.metadata === 'object' ? (message.metadata as Record<string, unknown>) : {};
    return createContext('tcp', { id: connectionId, address, port }, {}, { ...extra, connectionId, messageId: message.id }, tracing, signal, () => incomingFromHeaders(envelopeMetadataText(extra)));
  };
}
