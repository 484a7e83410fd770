/**
 * The UDP transport: one request frame per datagram, one reply datagram
 * (response or error). Streaming methods are refused with
 * STREAMING_NOT_SUPPORTED, since datagrams give no ordering or end-of-stream.
 * Replies larger than `maxPacketSize` become an error frame instead.
 * `configureUDP({protocol: {parseMessage, formatResponse}, routeMessage})`
 * replaces the frame codec for custom datagram formats.
 */
import dgram, { type RemoteInfo, type Socket } from 'node:dgram';
import { GatewayErrors, ServiceError, toServiceError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import { CallSession, type EnvelopeRequest, type ReplySink } from '../session/call-session';
import { decodeFrame, encodeFrame, FrameType, type Frame } from '../wire/frame-codec';
import { errorPayload, frameReplySink } from '../wire/frame-replies';
import { udpContext } from './context';

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

  #datagram(socket: Socket, msg: Buffer, rinfo: RemoteInfo): void {
    const core = this.#core;
    const config = this.#config();
    const maxPacket = config.maxPacketSize ?? 65507;
    if (core.observed) core.emit({ type: 'message', protocol: 'udp', direction: 'in', bytes: msg.length });
    const reply = (bytes: Buffer | Uint8Array | string): void => {
      const out = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
      if (out.length > maxPacket) {
        const tooBig = encodeFrame(FrameType.Error, { error: { code: 'RESPONSE_TOO_LARGE', message: `Reply of ${out.length} bytes exceeds maxPacketSize ${maxPacket}` } });
        socket.send(tooBig, rinfo.port, rinfo.address);
        return;
      }
      if (core.observed) core.emit({ type: 'message', protocol: 'udp', direction: 'out', bytes: out.length });
      socket.send(out, rinfo.port, rinfo.address);
    };
    const custom = config.protocol;
    const sink: ReplySink =
      custom?.formatResponse !== undefined
        ? customSink(core, custom.formatResponse, reply)
        : frameReplySink(core, 'udp', reply, () => undefined);
    if (msg.length > maxPacket) {
      sink.error(undefined, GatewayErrors.tooLarge('Datagram', maxPacket), undefined);
      return;
    }
    const session = new CallSession(core, 'udp', sink, (message, tracing, signal) => udpContext(rinfo, message, tracing, signal), {
      maxConcurrentCalls: 1,
      maxQueuedMessages: 0,
      clientStreaming: false,
      serverStreaming: false,
      controller: this.#controller,
    });
    try {
      let message: unknown;
      if (custom?.parseMessage !== undefined) {
        message = custom.parseMessage(msg);
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
      session.start(message as EnvelopeRequest);
    } catch (e) {
      sink.error(undefined, e instanceof ServiceError ? e : toServiceError(e), undefined);
    }
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

function customSink(
  core: GatewayCore,
  formatResponse: (result: unknown, type: 'response' | 'error') => Buffer | Uint8Array | string,
  reply: (bytes: Buffer | Uint8Array | string) => void,
): ReplySink {
  const safe = (result: unknown, type: 'response' | 'error'): void => {
    try {
      reply(formatResponse(result, type));
    } catch {
      reply(encodeFrame(FrameType.Error, { error: { code: 'INTERNAL_ERROR', message: 'formatResponse failed' } }));
    }
  };
  return {
    response: (_id, _method, data) => safe(data, 'response'),
    item: () => undefined,
    end: () => undefined,
    error: (id, error, traceId) => safe(errorPayload(core, 'udp', id, error, traceId), 'error'),
    writable: () => undefined,
  };
}
