/**
 * The UDP transport: one request frame per datagram, one reply datagram
 * (response or error). Streaming methods are refused with
 * STREAMING_NOT_SUPPORTED, since datagrams give no ordering or end-of-stream.
 * Replies larger than `maxPacketSize` become an error frame instead.
 * `configureUDP({protocol: {parseMessage, formatResponse}, routeMessage})`
 * replaces the frame codec for custom datagram formats.
 */
import dgram, { type RemoteInfo, type Socket } from 'node:dgram';
import { GatewayErrors, toServiceError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import type { EnvelopeRequest } from '../session/call-session';
import { decodeFrame, FrameType, type Frame } from '../wire/frame-codec';
import { startDatagramCall, type DatagramReplies } from './datagram-call';
import { datagramReplies, type FormatResponse } from './datagram-replies';

/** `configureUDP(config)` plus the constructor's `udp` options. */
export interface UdpGatewayConfig {
  /** Port to bind; default the gateway's port number. */
  port?: number;
  /** Largest datagram accepted or sent; default 65507. */
  maxPacketSize?: number;
  protocol?: {
    /** Datagram → message (`{id?, service, method, data, auth?}` unless routeMessage maps it). */
    parseMessage?: (buffer: Buffer) => unknown;
    /** Reply → datagram; `type` is `'response'` or `'error'`. */
    formatResponse?: (result: unknown, type: 'response' | 'error') => Buffer | Uint8Array | string;
  };
  /** Maps a parsed message to `{service, method, data}`. */
  routeMessage?: (message: unknown) => Partial<EnvelopeRequest> | undefined;
}

/** The UDP transport: a datagram socket on the gateway's port number. */
export class UdpTransport {
  readonly #core: GatewayCore;
  readonly #config: () => UdpGatewayConfig;
  #socket: Socket | undefined = undefined;
  /** Aborted on close; datagram calls share it (a datagram has no connection to lose). */
  #controller = new AbortController();
  #replies: DatagramReplies | undefined = undefined;
  #repliesConfig: UdpGatewayConfig | undefined = undefined;
  #repliesSocket: Socket | undefined = undefined;
  #repliesFormat: FormatResponse | undefined = undefined;

  constructor(core: GatewayCore, config: () => UdpGatewayConfig) {
    this.#core = core;
    this.#config = config;
  }

  /** Binds the datagram socket; resolves with the bound port. */
  bind(port: number, host: string): Promise<number> {
    const type = host.includes(':') ? 'udp6' : 'udp4';
    const socket = dgram.createSocket({ type, reuseAddr: false });
    this.#socket = socket;
    socket.on('message', (msg, rinfo) => this.#datagram(socket, msg, rinfo));
    socket.on('error', () => {
      // Per-datagram send errors (e.g. ICMP unreachable) must not take the gateway down.
    });
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, host, () => {
        socket.off('error', reject);
        resolve(socket.address().port);
      });
    });
  }

  get port(): number | undefined {
    return this.#socket?.address().port;
  }

  /** Replies for the current config; rebuilt only when configureUDP swapped it (or its formatResponse) or the socket changed. */
  #repliesFor(socket: Socket, config: UdpGatewayConfig, maxPacket: number): DatagramReplies {
    const format = config.protocol?.formatResponse;
    if (this.#replies === undefined || this.#repliesConfig !== config || this.#repliesSocket !== socket || this.#repliesFormat !== format) {
      this.#replies = datagramReplies(socket, this.#core, maxPacket, format);
      this.#repliesConfig = config;
      this.#repliesFormat = format;
      this.#repliesSocket = socket;
    }
    return this.#replies;
  }

  #datagram(socket: Socket, msg: Buffer, rinfo: RemoteInfo): void {
    const core = this.#core;
    const config = this.#config();
    const maxPacket = config.maxPacketSize ?? 65507;
    if (core.observed) core.emit({ type: 'message', protocol: 'udp', direction: 'in', bytes: msg.length });
    const replies = this.#repliesFor(socket, config, maxPacket);
    if (msg.length > maxPacket) {
      replies.error(rinfo, undefined, GatewayErrors.tooLarge('Datagram', maxPacket), undefined);
      return;
    }
    let message: unknown;
    try {
      const parseMessage = config.protocol?.parseMessage;
      if (parseMessage !== undefined) {
        message = parseMessage(msg);
      } else {
        const frame: Frame = decodeFrame(msg, maxPacket);
        if (frame.type !== FrameType.Request) throw GatewayErrors.badRequest(`UDP carries request frames (type 1) only, got type ${frame.type}`);
        message = frame.payload;
      }
      if (config.routeMessage !== undefined) {
        const routed = config.routeMessage(message);
        if (routed !== undefined && routed !== null) message = { ...(message as object), ...routed };
      }
      if (message === null || typeof message !== 'object') throw GatewayErrors.badRequest('A UDP message must decode to an object');
    } catch (e) {
      replies.error(rinfo, undefined, toServiceError(e), undefined);
      return;
    }
    startDatagramCall(core, replies, message as EnvelopeRequest, rinfo, this.#controller.signal);
  }

  close(): Promise<void> {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#controller.abort();
    this.#controller = new AbortController();
    if (socket === undefined) return Promise.resolve();
    return new Promise((resolve) => socket.close(() => resolve()));
  }
}
