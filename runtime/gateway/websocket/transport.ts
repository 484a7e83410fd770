/**
 * The WebSocket transport (ws): many concurrent calls per connection matched
 * by `id`, server streams as `stream`/`stream_end` messages, client and bidi
 * streams from `{id, type: 'stream', data}` / `{id, type: 'stream_end'}`,
 * `{id, type: 'cancel'}` cancels one call (call-reader.ts); replies in the
 * connection's format (reply-sink.ts). Messages over `maxPayload` close the
 * connection with 1009 (ws enforces it); output waits while the socket is
 * not draining.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { GatewayCore } from '../gateway-core';
import type { BufferedOutput, OutputBudget } from '../output-budget';
import { nextConnectionId } from '../gateway-core';
import { CallSession, type EnvelopeRequest } from '../session/call-session';
import { readMessage, type WebSocketCallReader } from './call-reader';
import { MESSAGE_FORMATS, toBuffer, type WebSocketMessageFormat } from './codec';
import { websocketContexts } from './context';
import { websocketReplies, type FormatResponse } from './reply-sink';
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
  formatResponse?: FormatResponse;
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
    const hooks = streamingHooks(config.handleStreaming);
    const baseSink = websocketReplies(core, format, { ws, socket, connectionId, maxBuffered, budget, output }, config.formatResponse);
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
    const reader: WebSocketCallReader = { format, maxPayload: config.maxPayload ?? 1 << 20, routeMessage: config.routeMessage, session, replies: sink, tap };
    ws.on('message', (data, isBinary) => {
      const bytes = toBuffer(data);
      if (core.observed) core.emit({ type: 'message', protocol: 'websocket', direction: 'in', bytes: bytes.length, connectionId });
      readMessage(reader, bytes, isBinary);
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
