/**
 * How UDP replies reach the sender: a type-2/3 frame (the default) or the
 * user's `formatResponse` bytes; each call answers through a
 * {@link DatagramReplySink} over them. One replies object serves every datagram
 * until the UDP configuration changes, so a call allocates no reply closures.
 * Replies larger than `maxPacketSize` become a RESPONSE_TOO_LARGE error frame;
 * a reply that cannot be encoded becomes INTERNAL_ERROR; a send on a closed
 * socket is dropped. A refusal of input that is not a well-formed request
 * (`refuse`) is never larger than that input: the full error frame, else the
 * bare code, else nothing. The replies objects never throw.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import type { RemoteInfo, Socket } from 'node:dgram';
import type { RequestContext } from '../../core/request-context';
import { catalogueError, type ServiceError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import type { ReplySink } from '../transport-adapter';
import { encodeFrame, encodeJsonFrame, FrameType } from '../wire/frame-codec';
import { envelopeMetadata, type EnvelopeMetadata } from '../wire/envelope-metadata';
import { errorPayload } from '../wire/frame-replies';
import { envelopeJson } from '../wire/reply-json';

/**
 * How a datagram call answers its sender. Neither method throws: a reply
 * that cannot be encoded becomes an INTERNAL_ERROR reply instead.
 */
export interface DatagramReplies {
  response(peer: RemoteInfo, id: unknown, method: string, data: unknown, traceId: string, meta?: EnvelopeMetadata): void;
  error(peer: RemoteInfo, id: unknown, error: ServiceError, traceId: string | undefined, meta?: EnvelopeMetadata): void;
  /** Refuses input that is not a well-formed request with a reply of at most `limit` bytes, or none (no amplification). */
  refuse(peer: RemoteInfo, error: ServiceError, limit: number): void;
}


/** `configureUDP({protocol: {formatResponse}})`. */
export type FormatResponse = (result: unknown, type: 'response' | 'error') => Buffer | Uint8Array | string;

/** Sends reply bytes to one peer, refusing datagrams over the size limit. */
class DatagramOut {
  readonly #socket: Socket;
  readonly #core: GatewayCore;
  readonly #maxPacket: number;

  constructor(socket: Socket, core: GatewayCore, maxPacket: number) {
    this.#socket = socket;
    this.#core = core;
    this.#maxPacket = maxPacket;
  }

  /** Sends `out` only when it is at most `limit` bytes; returns whether it was sent. */
  sendWithin(peer: RemoteInfo, out: Buffer | Uint8Array, limit: number): boolean {
    if (out.length > limit) return false;
    this.send(peer, out);
    return true;
  }

  send(peer: RemoteInfo, out: Buffer | Uint8Array): void {
    const max = this.#maxPacket;
    if (out.length > max) {
      const tooBig = encodeFrame(FrameType.Error, { error: { code: 'RESPONSE_TOO_LARGE', message: `Reply of ${out.length} bytes exceeds maxPacketSize ${max}` } });
      this.#write(tooBig, peer);
      return;
    }
    const core = this.#core;
    if (core.observed) core.emit({ type: 'message', protocol: 'udp', direction: 'out', bytes: out.length });
    this.#write(out, peer);
  }

  #write(out: Buffer | Uint8Array, peer: RemoteInfo): void {
    try {
      this.#socket.send(out, peer.port, peer.address);
    } catch {
      // The socket closed while the call ran: there is no one left to answer.
    }
  }
}

const unencodable = (): ServiceError => catalogueError('INTERNAL_ERROR', 'Reply could not be encoded');

/** Replies as frames: type 2 `{id, method, data, traceId}`, type 3 `{id, error, traceId}`. */
class FrameReplies implements DatagramReplies {
  readonly #out: DatagramOut;
  readonly #core: GatewayCore;

  constructor(out: DatagramOut, core: GatewayCore) {
    this.#out = out;
    this.#core = core;
  }

  response(peer: RemoteInfo, id: unknown, method: string, data: unknown, traceId: string, meta?: EnvelopeMetadata): void {
    let frame: Buffer;
    try {
      frame = encodeJsonFrame(FrameType.Response, envelopeJson(id, method, data, traceId, meta));
    } catch {
      this.#fallback(peer, id, traceId);
      return;
    }
    this.#out.send(peer, frame);
  }

  error(peer: RemoteInfo, id: unknown, error: ServiceError, traceId: string | undefined, meta?: EnvelopeMetadata): void {
    let frame: Buffer;
    try {
      frame = encodeFrame(FrameType.Error, { ...errorPayload(this.#core, 'udp', id, error, traceId), ...meta });
    } catch {
      this.#fallback(peer, id, traceId);
      return;
    }
    this.#out.send(peer, frame);
  }

  refuse(peer: RemoteInfo, error: ServiceError, limit: number): void {
    try {
      if (this.#out.sendWithin(peer, encodeFrame(FrameType.Error, errorPayload(this.#core, 'udp', undefined, error, undefined)), limit)) return;
    } catch {
      // Fall through to the bare code.
    }
    this.#out.sendWithin(peer, encodeFrame(FrameType.Error, { error: { code: error.code } }), limit);
  }

  #fallback(peer: RemoteInfo, id: unknown, traceId: string | undefined): void {
    const safeId = typeof id === 'string' || typeof id === 'number' ? id : undefined;
    try {
      this.#out.send(peer, encodeFrame(FrameType.Error, errorPayload(this.#core, 'udp', safeId, unencodable(), traceId)));
    } catch {
      // Even the plain error could not be encoded (transformError output): nothing more can be said.
    }
  }
}

/** Replies through the user's `formatResponse(result, 'response' | 'error')`. */
class CustomReplies implements DatagramReplies {
  readonly #out: DatagramOut;
  readonly #core: GatewayCore;
  readonly #format: FormatResponse;

  constructor(out: DatagramOut, core: GatewayCore, format: FormatResponse) {
    this.#out = out;
    this.#core = core;
    this.#format = format;
  }

  response(peer: RemoteInfo, id: unknown, _method: string, data: unknown, traceId: string): void {
    try {
      this.#safe(peer, data, 'response');
    } catch {
      this.#fallback(peer, id, traceId);
    }
  }

  error(peer: RemoteInfo, id: unknown, error: ServiceError, traceId: string | undefined): void {
    try {
      this.#safe(peer, errorPayload(this.#core, 'udp', id, error, traceId), 'error');
    } catch {
      this.#fallback(peer, id, traceId);
    }
  }

  refuse(peer: RemoteInfo, error: ServiceError, limit: number): void {
    try {
      const bytes: unknown = this.#format(errorPayload(this.#core, 'udp', undefined, error, undefined), 'error');
      const out = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
      if (ArrayBuffer.isView(out)) this.#out.sendWithin(peer, out as Uint8Array, limit);
    } catch {
      // A formatResponse that fails on a refusal: stay silent rather than send something bigger.
    }
  }

  #fallback(peer: RemoteInfo, id: unknown, traceId: string | undefined): void {
    const safeId = typeof id === 'string' || typeof id === 'number' ? id : undefined;
    try {
      this.#safe(peer, errorPayload(this.#core, 'udp', safeId, unencodable(), traceId), 'error');
    } catch {
      // Nothing more can be said to this peer.
    }
  }

  /** formatResponse's bytes; a formatResponse that throws or returns no bytes sends a plain INTERNAL_ERROR frame. */
  #safe(peer: RemoteInfo, result: unknown, type: 'response' | 'error'): void {
    let out: Buffer | Uint8Array;
    try {
      const bytes: unknown = this.#format(result, type);
      out = typeof bytes === 'string' ? Buffer.from(bytes) : (bytes as Uint8Array);
      if (!ArrayBuffer.isView(out)) throw new TypeError('formatResponse must return a Buffer, Uint8Array or string');
    } catch {
      out = encodeFrame(FrameType.Error, { error: { code: 'INTERNAL_ERROR', message: 'formatResponse failed' } });
    }
    this.#out.send(peer, out);
  }
}

/** The replies for the current configuration, sent through `socket`. */
export function datagramReplies(socket: Socket, core: GatewayCore, maxPacket: number, format: FormatResponse | undefined): DatagramReplies {
  const out = new DatagramOut(socket, core, maxPacket);
  return format === undefined ? new FrameReplies(out, core) : new CustomReplies(out, core, format);
}

/**
 * One datagram call's ReplySink: its one reply (or error) to the sender,
 * with the handler's headers and trailers. Datagrams carry no streams
 * (streaming methods are refused before a call starts), so `item` and `end`
 * send nothing.
 */
export class DatagramReplySink implements ReplySink {
  readonly #replies: DatagramReplies;
  readonly #peer: RemoteInfo;
  readonly #id: unknown;
  readonly #method: string;
  readonly #traceId: string;
  readonly #context: RequestContext;

  constructor(replies: DatagramReplies, peer: RemoteInfo, id: unknown, method: string, traceId: string, context: RequestContext) {
    this.#replies = replies;
    this.#peer = peer;
    this.#id = id;
    this.#method = method;
    this.#traceId = traceId;
    this.#context = context;
  }

  message(data: unknown): void {
    this.#replies.response(this.#peer, this.#id, this.#method, data, this.#traceId, envelopeMetadata(this.#context, true));
  }

  item(): void {}

  end(): void {}

  fail(error: ServiceError): void {
    this.#replies.error(this.#peer, this.#id, error, this.#traceId, envelopeMetadata(this.#context, true));
  }
}
