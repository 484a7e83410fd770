/**
 * RequestContext for a UDP datagram: client from the sender's address, no
 * headers, metadata with the call id plus the envelope's `metadata`.
 * `client` is built on first read, as on HTTP (most handlers never look):
 * its `address:port` id string is then not made per datagram.
 */
import type { RemoteInfo } from 'node:dgram';
import { CollectedCallMetadata, envelopeMetadataText, incomingFromHeaders } from '../../core/call-metadata';
import type { AuthenticationInfo, ClientInfo, Protocol, RequestContext, TracingInfo } from '../../core/request-context';
import type { EnvelopeRequest } from '../session/call-session';

class UdpRequestContext implements RequestContext {
  readonly protocol: Protocol = 'udp';
  readonly headers: Record<string, string> = {};
  readonly metadata: Record<string, unknown>;
  authentication: AuthenticationInfo | undefined = undefined;
  readonly tracing: TracingInfo;
  readonly signal: AbortSignal;
  readonly #peer: RemoteInfo;
  #client: ClientInfo | undefined = undefined;
  #call: CollectedCallMetadata | undefined = undefined;

  constructor(peer: RemoteInfo, metadata: Record<string, unknown>, tracing: TracingInfo, signal: AbortSignal) {
    this.metadata = metadata;
    this.tracing = tracing;
    this.signal = signal;
    this.#peer = peer;
  }

  /** Request metadata from the envelope's `metadata` (text values; `-bin` keys base64). */
  get call(): CollectedCallMetadata {
    if (this.#call === undefined) {
      const metadata = this.metadata;
      this.#call = new CollectedCallMetadata(() => incomingFromHeaders(envelopeMetadataText(metadata)));
    }
    return this.#call;
  }

  /** The same object on every read. */
  get client(): ClientInfo {
    if (this.#client === undefined) {
      const { address, port } = this.#peer;
      this.#client = { id: `${address}:${port}`, address, port };
    }
    return this.#client;
  }
}

/** Builds the RequestContext of one UDP datagram call. */
export function udpContext(rinfo: RemoteInfo, message: EnvelopeRequest, tracing: TracingInfo, signal: AbortSignal): RequestContext {
  const extra = message.metadata;
  // Without envelope metadata (the common case) skip the spread.
  const metadata =
    extra !== null && typeof extra === 'object'
      ? { ...(extra as Record<string, unknown>), messageId: message.id, packetSize: rinfo.size }
      : { messageId: message.id, packetSize: rinfo.size };
  return new UdpRequestContext(rinfo, metadata, tracing, signal);
}
