/**
 * The WebSocket transport (ws): many concurrent calls per connection matched
 * by `id`, server streams as `stream`/`stream_end` messages, client and bidi
 * streams from `{id, type: 'stream', data}` / `{id, type: 'stream_end'}`,
 * `{id, type: 'cancel'}` cancels one call.
 * Messages over `maxPayload` close the connection with 1009 (ws enforces it);
 * output waits while the socket is not draining.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ServiceErrors, toServiceError, type ServiceError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import type { BufferedOutput, OutputBudget } from '../output-budget';
import { nextConnectionId } from '../gateway-core';
import { drainOrClose } from '../drain-or-close';
import { CallSession, type EnvelopeRequest, type ReplySink } from '../session/call-session';
import { decodeFrame } from '../wire/frame-codec';
import { frameReplySink, handleFrame } from '../wire/frame-replies';
import { decodeEnvelope, encodeEnvelope, MESSAGE_FORMATS, toBuffer, type WebSocketMessageFormat } from './codec';
import { websocketContexts } from './context';
import { ClientStreamTap, hookedSink, streamingHooks, type WebSocketStreamingHooks } from './streaming-hooks';
import type { TransportAdapter } from '../transport-adapter';

/** `configureWebSocket(config)` plus the constructor's `websocket` options. */
export interface WebSocketGatewayConfig {
  /** Upgrade path; default `/ws`. */
  path?: string;
  /** Default format; a client may pick another with subprotocol `fw.json`, `fw.msgpack` or `fw.binary`. */
  messageFormat?: WebSocketMessageFormat;
  enableCompression?: boolean;
  /** Largest accepted message in bytes; default 1 MiB (bigger → close 1009). */
  maxPayload?: number;
  /** Close connections silent for this long (ms); default 120000. */
  idleTimeout?: number;
  /** Maps a client message to `{service, method, data}`; return undefined to keep the message as is. */
  routeMessage?: (message: Record<string, unknown>) => Partial<EnvelopeRequest> | undefined;
  /** Builds the reply for a unary result instead of `{id, type: 'response', method, data, timestamp}`. */
  formatResponse?: (result: unknown, messageId: unknown, method: string) => Record<string, unknown>;
  /**
   * false refuses streaming methods with STREAMING_NOT_SUPPORTED; true (default)
   * streams with `stream`/`stream_end` messages; `{server, client}` hooks
   * take over forwarding (spec 4.10, see streaming-hooks.ts).
   */
  handleStreaming?: boolean | WebSocketStreamingHooks;
  maxConcurrentCalls?: number;
  /** Output bytes buffered for a peer that does not read before it is dropped; default 16 MiB. */
  maxBufferedBytes?: number;
}

const HIGH_WATER = 1 << 20;

/** The WebSocket transport: takes over upgrades on its path. */
export class WebSocketTransport implements TransportAdapter {
  readonly transport = 'websocket' as const;
  readonly #core: GatewayCore;
  readonly #config: () => WebSocketGatewayConfig;
  readonly #budget: OutputBudget | undefined;
  #wss: WebSocketServer | undefined = undefined;
  #wssKey = '';
  /** Open connections' sessions, for drain. */
  readonly #sessions = new Map<WebSocket, CallSession>();
  #draining = false;

  /** `budget`: the gateway-wide cap on output buffered for clients that do not read (output-budget.ts). */
  constructor(core: GatewayCore, config: () => WebSocketGatewayConfig, budget?: OutputBudget) {
    this.#core = core;
    this.#config = config;
    this.#budget = budget;
  }

  get path(): string {
    return this.#config().path ?? '/ws';
  }

  #server(): WebSocketServer {
    const c = this.#config();
    const key = `${c.maxPayload ?? ''}|${c.enableCompression ?? ''}`;
    if (this.#wss === undefined || this.#wssKey !== key) {
      this.#wss = new WebSocketServer({
        noServer: true,
        maxPayload: c.maxPayload ?? 1 << 20,
        perMessageDeflate: c.enableCompression === true,
        clientTracking: true,
        handleProtocols: (protocols) => {
          for (const p of protocols) if (p === 'fw.json' || p === 'fw.msgpack' || p === 'fw.binary') return p;
          return false;
        },
      });
      this.#wssKey = key;
    }
    return this.#wss;
  }

  /** True when this upgrade request is for the gateway's path. */
  accepts(req: IncomingMessage): boolean {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    return (q === -1 ? url : url.slice(0, q)) === this.path;
  }

  /** Takes over an HTTP upgrade (from the gateway's own server or a host app). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    if (this.#draining) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.#server().handleUpgrade(req, socket, head, (ws) => this.#connection(ws, req, socket));
  }

  #connection(ws: WebSocket, req: IncomingMessage, socket: Duplex): void {
    const core = this.#core;
    const config = this.#config();
    const chosen = ws.protocol.startsWith('fw.') ? (ws.protocol.slice(3) as WebSocketMessageFormat) : (config.messageFormat ?? 'json');
    const format: WebSocketMessageFormat = MESSAGE_FORMATS.includes(chosen) ? chosen : 'json';
    const connectionId = nextConnectionId('websocket');
    const opened = Date.now();
    if (core.observed) core.emit({ type: 'connection-open', protocol: 'websocket', connectionId });
    const maxBuffered = config.maxBufferedBytes ?? 16 << 20;
    const budget = this.#budget;
    const output: BufferedOutput = {
      protocol: 'websocket',
      connectionId,
      bufferedBytes: () => ws.bufferedAmount,
      cut: (reason) => {
        // 1008 with the reason, for a client that still reads; its buffers are freed within a second either way.
        ws.close(1008, reason.slice(0, 120));
        setTimeout(() => ws.terminate(), 1000).unref();
      },
    };
    let corked = false;
    const uncork = (): void => {
      corked = false;
      socket.uncork();
    };
    const send = (data: string | Uint8Array): void => {
      if (ws.readyState !== ws.OPEN) return;
      // Replies finishing in the same tick leave in one write.
      if (!corked) {
        corked = true;
        socket.cork();
        process.nextTick(uncork);
      }
      if (core.observed) core.emit({ type: 'message', protocol: 'websocket', direction: 'out', bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength, connectionId });
      ws.send(data);
      // A peer that stops reading: stop reading its requests, and drop it past the hard limit.
      const buffered = ws.bufferedAmount;
      budget?.note(output, buffered);
      if (buffered > maxBuffered) ws.terminate();
      else if (buffered > HIGH_WATER && !ws.isPaused) {
        ws.pause();
        socket.once('drain', () => ws.resume());
      }
    };
    const writable = (): Promise<void> | undefined => {
      if (ws.bufferedAmount <= HIGH_WATER || ws.readyState !== ws.OPEN) return undefined;
      return drainOrClose(socket);
    };
    const hooks = streamingHooks(config.handleStreaming);
    const baseSink: ReplySink =
      format === 'binary'
        ? frameReplySink(core, 'websocket', send, writable)
        : envelopeSink(core, format, send, writable, config.formatResponse);
    const sink = hooks?.server !== undefined ? hookedSink(baseSink, ws, hooks.server) : baseSink;
    const tap = hooks?.client !== undefined ? new ClientStreamTap(hooks.client, ws) : undefined;
    const streaming = config.handleStreaming !== false;
    const session = new CallSession(core, 'websocket', sink, websocketContexts(req, connectionId), {
      maxConcurrentCalls: config.maxConcurrentCalls ?? 1000,
      maxQueuedMessages: 1024,
      clientStreaming: streaming,
      serverStreaming: streaming,
      perCallSignals: true,
    });
    const idle = config.idleTimeout ?? 120_000;
    if (idle > 0 && 'setTimeout' in socket) (socket as Duplex & { setTimeout(ms: number, cb: () => void): void }).setTimeout(idle, () => ws.terminate());
    ws.on('message', (data, isBinary) => {
      const bytes = toBuffer(data);
      if (core.observed) core.emit({ type: 'message', protocol: 'websocket', direction: 'in', bytes: bytes.length, connectionId });
      try {
        if (format === 'binary') {
          if (!isBinary) throw ServiceErrors.badRequest('This connection speaks the binary frame format');
          handleFrame(decodeFrame(bytes, config.maxPayload ?? 1 << 20), session, sink);
          return;
        }
        let message = decodeEnvelope(format, bytes);
        if (config.routeMessage !== undefined) {
          const routed = config.routeMessage(message);
          if (routed !== undefined && routed !== null) message = { ...message, ...routed };
        }
        if (message.type === 'stream') {
          tap?.push(message.id, message.data);
          session.push(message.id, message.data);
        } else if (message.type === 'stream_end') {
          tap?.end(message.id);
          session.end(message.id);
        } else if (message.type === 'cancel') {
          tap?.cancel(message.id);
          session.cancel(message.id);
        }
        else session.start(message as EnvelopeRequest);
      } catch (e) {
        sink.error(undefined, toServiceError(e), undefined);
      }
    });
    this.#sessions.set(ws, session);
    if (this.#draining) void session.whenIdle().then(() => ws.close(1001, 'Server shutting down'));
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      this.#sessions.delete(ws);
      budget?.forget(output);
      session.close();
      tap?.close();
      if (core.observed) core.emit({ type: 'connection-close', protocol: 'websocket', connectionId, durationMs: Date.now() - opened });
    });
  }

  /**
   * Graceful stop: each connection is closed with 1001 (going away) once its
   * running calls have replied; resolves when all are closed. New calls
   * meanwhile are refused by the dispatcher (UNAVAILABLE), new upgrades with 503.
   */
  drain(): Promise<void> {
    this.#draining = true;
    const closed: Promise<void>[] = [];
    for (const [ws, session] of this.#sessions) {
      closed.push(new Promise((resolve) => ws.once('close', () => resolve())));
      void session.whenIdle().then(() => ws.close(1001, 'Server shutting down'));
    }
    return Promise.all(closed).then(() => undefined);
  }

  /** Closes every connection. */
  close(): void {
    this.#draining = false;
    if (this.#wss === undefined) return;
    for (const client of this.#wss.clients) client.terminate();
    this.#wss.close();
    this.#wss = undefined;
  }
}

function envelopeSink(
  core: GatewayCore,
  format: 'json' | 'msgpack',
  send: (data: string | Uint8Array) => void,
  writable: () => Promise<void> | undefined,
  formatResponse: WebSocketGatewayConfig['formatResponse'],
): ReplySink {
  const out = (m: Record<string, unknown>): void => send(encodeEnvelope(format, m));
  return {
    response: (id, method, data, traceId, meta) =>
      out(formatResponse !== undefined ? { ...formatResponse(data, id, method), traceId, ...meta } : { id, type: 'response', method, data, timestamp: Date.now(), traceId, ...meta }),
    item: (id, data, traceId, meta) => out({ id, type: 'stream', data, traceId, ...meta }),
    end: (id, traceId, meta) => out({ id, type: 'stream_end', traceId, ...meta }),
    error: (id, error: ServiceError, traceId, meta) => {
      const custom = core.renderError(error, 'websocket');
      if (custom !== undefined && custom !== null && typeof custom === 'object') out({ id, ...(custom as Record<string, unknown>), traceId, ...meta });
      else out({ id, type: 'error', error: { code: error.code, message: error.message, details: error.details }, traceId, ...meta });
    },
    writable,
  };
}

