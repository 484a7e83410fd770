/**
 * The gateway's own port: the one listener (mux/port-listener.ts, which an
 * fw app's port uses too) over a never-listening http.Server that HTTP/1.1
 * and WebSocket connections are handed to, with its header/request timeouts
 * armed from the gateway's `http` options.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Protocol } from '../core/request-context';
import type { ConnectTransport } from './connect/transport';
import type { GrpcTransport } from './grpc/transport';
import type { HttpTransport } from './http/transport';
import { timeoutCheckInterval } from '../http/server-options';
import { PortListener, type BoundPort, type UdpTwin } from './mux/port-listener';
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

/** One port for HTTP, WebSocket, gRPC and TCP frames (and UDP on the same number). */
export class StreamListener {
  readonly #deps: StreamListenerDeps;
  #port: PortListener | undefined = undefined;

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
      this.#port?.adopt(socket);
      if (this.#deps.enabled('websocket') && this.#deps.websocket().accepts(req)) this.#deps.websocket().handleUpgrade(req, socket, head);
      else socket.destroy();
    });
    return server;
  }

  /** Listens on `port` (0 = any), with `udp` on the same port number; resolves with the bound ports. */
  listen(port: number, host: string, udp?: UdpTwin): Promise<BoundPort> {
    const options = this.#deps.options();
    const enabled = (p: Protocol): boolean => this.#deps.enabled(p);
    const listener = new PortListener(this.#createHttpServer());
    this.#port = listener;
    return listener.listen(port, host, {
      mux: { ...options.tcp, maxConnections: options.maxConnections, maxConnectionsPerAddress: options.maxConnectionsPerAddress },
      http: enabled('http') || enabled('websocket'),
      grpc: enabled('grpc') ? (socket) => this.#deps.grpc().inject(socket) : undefined,
      tcp: enabled('tcp') ? (socket) => this.#deps.tcp().handle(socket) : undefined,
      udp,
    });
  }

  /**
   * Graceful stop of the port: no new connections; idle HTTP keep-alive
   * connections close now and busy ones as soon as their response is out
   * (responses meanwhile say `Connection: close`). Resolves when every HTTP
   * connection that is not a WebSocket has closed.
   */
  drainHttp(): Promise<void> {
    return this.#port?.drainHttp() ?? Promise.resolve();
  }

  /** Stops listening and closes every HTTP connection (other transports close their own). */
  async close(): Promise<void> {
    const port = this.#port;
    this.#port = undefined;
    if (port === undefined) return;
    port.cut(false);
    await port.closed();
  }
}
