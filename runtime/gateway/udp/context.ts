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
  const extra = message.metadata !== null && typeof message.metadata === 'object' ? (message.metadata as Record<string, unknown>) : {};
  return createContext(
    'udp',
    { id: `${rinfo.address}:${rinfo.port}`, address: rinfo.address, port: rinfo.port },
    {},
    { ...extra, messageId: message.id, packetSize: rinfo.size },
    tracing,
    signal,
  );
}
