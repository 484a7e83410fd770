/**
 * RequestContext for a UDP datagram: client from the sender's address, no
 * headers, metadata with the call id plus the envelope's `metadata`.
 */
import type { RemoteInfo } from 'node:dgram';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import { createContext } from '../gateway-core';
import type { EnvelopeRequest } from '../session/call-session';

/** Builds the RequestContext of one UDP datagram call. */
export function udpContext(rinfo: RemoteInfo, message: EnvelopeRequest, tracing: TracingInfo, signal: AbortSignal): RequestContext {
  const extra = message.metadata;
  // Without envelope metadata (the common case) skip the spread.
  const metadata =
    extra !== null && typeof extra === 'object'
      ? { ...(extra as Record<string, unknown>), messageId: message.id, packetSize: rinfo.size }
      : { messageId: message.id, packetSize: rinfo.size };
  return createContext('udp', { id: `${rinfo.address}:${rinfo.port}`, address: rinfo.address, port: rinfo.port }, {}, metadata, tracing, signal);
}
