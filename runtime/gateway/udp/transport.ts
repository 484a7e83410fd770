/**
 * The UDP transport: one request frame per datagram, one reply datagram
 * (response or error). Streaming methods are refused with
 * STREAMING_NOT_SUPPORTED, since datagrams give no ordering or end-of-stream.
 * Replies larger than `maxPacketSize` become an error frame instead.
 *
 * Amplification (the source address of a datagram may be spoofed): input
 * that is not a well-formed request is refused with a reply no larger than
 * the datagram itself (or none), and well-formed requests are limited per
 * source address (`rateLimit`, default 100 a second; past it, silence). So
 * a spoofed sender gets at most `rateLimit.requests` replies of at most
 * `maxPacketSize` bytes per window, and never more bytes than it sent for
 * garbage. `drain()` lets running calls reply before the socket closes.
 * `configureUDP({protocol: {parseMessage, formatResponse}, routeMessage})`
 * replaces the frame codec for custom datagram formats.
 */
import dgram, { type RemoteInfo, type Socket } from 'node:dgram';
import { ServiceErrors, toServiceError } from '../errors';
import { limiterFor, type FixedWindowLimiter } from '../rate-limit';
import type { RateLimitConfig } from '../types';
import type { GatewayCore } from '../gateway-core';
import type { EnvelopeRequest } from '../session/call-session';
import { readDatagram } from './call-reader';
import { startDatagramCall } from './datagram-call';
import { datagramReplies, type DatagramReplies, type FormatResponse } from './reply-sink';
import type { TransportAdapter } from '../transport-adapter';
import { datagramSharing } from '../../workers/port-sharing';

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
  /** Well-formed requests per source address; default `{requests: 100, window: 1000}`; false turns it off. Over the limit: no reply. */
  rateLimit?: RateLimitConfig | false;
}

const DEFAULT_UDP_RATE: RateLimitConfig = { requests: 100, window: 1000 };

/** The UDP transport: a datagram socket on the gateway's port number. */
export class UdpTransport implements TransportAdapter {
  readonly transport = 'udp' as const;
  readonly #core: GatewayCore;
  readonly #config: () => UdpGatewayConfig;
  #socket: Socket | undefined = undefined;
  /** Aborted on close; datagram calls share it (a datagram has no connection to lose). */
  #controller = new AbortController();
  #replies: DatagramReplies | undefined = undefined;
  #repliesConfig: UdpGatewayConfig | undefined = undefined;
  #repliesSocket: Socket | undefined = undefined;
  #repliesFormat: FormatResponse | undefined = undefined;
  #limiter: FixedWindowLimiter | undefined = undefined;
  #limiterConfig: RateLimitConfig | false | undefined = undefined;

  constructor(core: GatewayCore, config: () => UdpGatewayConfig) {
    this.#core = core;
    this.#config = config;
  }

  /** Binds the datagram socket; resolves with the bound port. */
  bind(port: number, host: string): Promise<number> {
    const type = host.includes(':') ? 'udp6' : 'udp4';
    // In a worker on Linux every worker binds the port itself (reusePort); elsewhere node:cluster shares one socket.
    const sharing = datagramSharing();
    const socket = dgram.createSocket({ type, reuseAddr: false, ...(sharing.reusePort === true ? { reusePort: true } : {}) } as dgram.SocketOptions);
    this.#socket = socket;
    socket.on('message', (msg, rinfo) => this.#datagram(socket, msg, rinfo));
    socket.on('error', () => {
      // Per-datagram send errors (e.g. ICMP unreachable) must not take the gateway down.
    });
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ port, address: host, exclusive: sharing.exclusive === true }, () => {
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
      replies.refuse(rinfo, ServiceErrors.tooLarge('Datagram', maxPacket), msg.length);
      return;
    }
    let message: EnvelopeRequest;
    try {
      message = readDatagram(msg, config, maxPacket);
    } catch (e) {
      replies.refuse(rinfo, toServiceError(e), msg.length);
      return;
    }
    const limiter = this.#limiterFor(config);
    // Over the limit: silence (an error reply would still amplify toward a spoofed address).
    if (limiter !== undefined && limiter.take(rinfo.address) > 0) return;
    startDatagramCall(core, replies, message, rinfo, this.#controller.signal);
  }

  #limiterFor(config: UdpGatewayConfig): FixedWindowLimiter | undefined {
    const rule = config.rateLimit ?? DEFAULT_UDP_RATE;
    if (rule !== this.#limiterConfig) {
      this.#limiter = rule === false ? undefined : limiterFor(rule);
      this.#limiterConfig = rule;
    }
    return this.#limiter;
  }

  /** Lets running calls send their replies (new ones are refused by the dispatcher), then closes the socket. */
  async drain(settled: Promise<void>): Promise<void> {
    await settled;
    // A reply handed to socket.send() leaves after an address lookup on the next ticks.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    await this.close();
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
