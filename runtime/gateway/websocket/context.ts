/**
 * RequestContext for a WebSocket call: client from the upgrade request,
 * the upgrade's headers, metadata with the connection and message ids.
 */
import { envelopeMetadataText, incomingFromHeaders } from '../../core/call-metadata';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import { createContext } from '../gateway-core';
import type { EnvelopeRequest } from '../session/call-session';

/**
 * The context builder of one connection. `req.headers` and the socket's peer
 * are getters with megamorphic lookups inside: they are read on the first
 * call and kept (the headers object and net.Socket's cached peer do not
 * change); while the address is still unknown it is read again on every
 * call, as before. Every call still gets its own client and metadata objects.
 */
export function websocketContexts(req: IncomingMessage, connectionId: string): (message: EnvelopeRequest, tracing: TracingInfo, signal: AbortSignal | (() => AbortSignal)) => RequestContext {
  let headers: IncomingHttpHeaders | undefined;
  let address = '';
  let port = 0;
  return (message, tracing, signal) => {
    if (headers === undefined) headers = req.headers;
    if (address === '') {
      address = req.socket.remoteAddress ?? '';
      port = req.socket.remotePort ?? 0;
    }
    const extra = message.metadata !== null && typeof message.metadata === 'object' ? (message.metadata as Record<string, unknown>) : {};
    return createContext(
      'websocket',
      { id: connectionId, address, port, userAgent: headers['user-agent'], version: headers['sec-websocket-version'] as string | undefined },
      headers as Record<string, string>,
      { ...extra, connectionId, messageId: message.id, path: req.url },
      tracing,
      signal,
      // The upgrade request's headers, then the envelope's `metadata` (per call) over them.
      () => incomingFromHeaders({ ...(headers as Record<string, string>), ...envelopeMetadataText(extra) }),
    );
  };
}
