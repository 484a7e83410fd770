/**
 * The gateway's one TCP listener: the mux that classifies connections, and
 * the never-listening http.Server that HTTP/1.1 and WebSocket connections are
 * handed to (with its header/request timeouts armed by hand).
 */
import http from 'node:http';
import type { Server as NetServer } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Protocol } from '../core/request-context';
import type { ConnectTransport } from './connect/transport';
import type { GrpcTransport } from './grpc/transport';
import type { HttpTransport } from './http/transport';
import { timeoutCheckInterval } from '../http/server-options';
import { createMuxServer } from './mux/connection-mux';
import type { GatewayOptions } from './options';
import type { TcpTransport } from './tcp/transport';
import type { WebSocketTransport } from './websocket/transport';

/** The transports and settings the listener routes to. */
export interface StreamListenerDeps {
  enabled(protocol: Protocol): boolean;
  options(): GatewayOptions;
  /** Each transport is asked for when first needed (the gateway builds them lazily). */
  http(): HttpTransport;
  /** Connect and gRPC-Web, tried before HTTP/JSON. */
  connect(): ConnectTransport;
  websocket(): WebSocketTransport;
  grpc(): GrpcTransport;
  tcp(): TcpTransport;
}

/** One port for HTTP, WebSocket, gRPC and TCP frames. */
export class StreamListener {
  readonly #deps: StreamListenerDeps;
  #mux: NetServer | undefined = undefined;
  #httpServer: http.Server | undefined = undefined;
  /** Connections handed to the HTTP server (WebSocket upgrades leave it, but stay here until closed). */
  readonly #httpSockets = new Set<Duplex>();
  #muxClosed: Promise<void> = Promise.resolve();

  constructor(deps: StreamListenerDeps) {
    this.#deps = deps;
  }

  #createHttpServer(): http.Server {
    const o = this.#deps.options().http ?? {};
    const headersTimeout = o.headersTimeout ?? 60_000;
    const requestTimeout = o.requestTimeout ?? 120_000;
    const options: http.ServerOptions = {
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: timeoutCheckInterval(Math.min(headersTimeout || Infinity, requestTimeout || Infinity)),
    };
    const server = http.createServer(options, (req, res) => {
      if (this.#deps.enabled('http')) {
        if (this.#deps.connect().tryHandle(req, res)) return;
        this.#deps.http().handle(req, res);
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    server.timeout = this.#deps.options().http?.idleTimeout ?? 120_000;
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      // The WebSocket transport owns (and drains) an upgraded connection.
      this.#httpSockets.delete(socket);
      if (this.#deps.enabled('websocket') && this.#deps.websocket().accepts(req)) this.#deps.websocket().handleUpgrade(req, socket, head);
      else socket.destroy();
    });
    // Sockets arrive from the mux, so this server never listens itself; 'listening' arms
    // Node's headersTimeout/requestTimeout checks, which are otherwise started by listen().
    server.emit('listening');
    return server;
  }

  /** Listens on `port` (0 = any); resolves with the bound port. */
  listen(port: number, host: string): Promise<number> {
    const options = this.#deps.options();
    const muxOptions = { ...options.tcp, maxConnections: options.maxConnections, maxConnectionsPerAddress: options.maxConnectionsPerAddress };
    this.#httpServer = this.#createHttpServer();
    const httpServer = this.#httpServer;
    const mux = createMuxServer(
      {
        http: this.#deps.enabled('http') || this.#deps.enabled('websocket') ? (socket) => {
          this.#httpSockets.add(socket);
          socket.once('close', () => this.#httpSockets.delete(socket));
          httpServer.emit('connection', socket);
          socket.resume();
        } : undefined,
        grpc: this.#deps.enabled('grpc') ? (socket) => this.#deps.grpc().inject(socket) : undefined,
        tcp: this.#deps.enabled('tcp') ? (socket) => {
          this.#deps.tcp().handle(socket);
          socket.resume();
        } : undefined,
      },
      muxOptions,
    );
    this.#mux = mux;
    return new Promise((resolve, reject) => {
      mux.once('error', reject);
      mux.listen(port, host, () => {
        mux.off('error', reject);
        const address = mux.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });
  }

  /**
   * Graceful stop of the port: no new connections; idle HTTP keep-alive
   * connections close now and busy ones as soon as their response is out
   * (responses meanwhile say `Connection: close`). Resolves when every HTTP
   * connection that is not a WebSocket has closed.
   */
  drainHttp(): Promise<void> {
    const mux = this.#mux;
    if (mux !== undefined && mux.listening) this.#muxClosed = new Promise<void>((resolve) => mux.close(() => resolve()));
    const server = this.#httpServer;
    if (server === undefined) return Promise.resolve();
    server.closeIdleConnections();
    return new Promise<void>((resolve) => {
      const sweep = setInterval(() => {
        server.closeIdleConnections();
        if ([...this.#httpSockets].every((s) => s.destroyed)) {
          clearInterval(sweep);
          resolve();
        }
      }, 25);
    });
  }

  /** Stops listening and closes every HTTP connection (other transports close their own). */
  async close(): Promise<void> {
    const mux = this.#mux;
    this.#mux = undefined;
    this.#httpServer?.close();
    this.#httpServer?.closeAllConnections();
    this.#httpServer = undefined;
    for (const socket of this.#httpSockets) socket.destroy();
    this.#httpSockets.clear();
    if (mux !== undefined && mux.listening) await new Promise<void>((resolve) => mux.close(() => resolve()));
    await this.#muxClosed;
  }
}
