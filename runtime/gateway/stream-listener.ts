/**
 * The gateway's own port: the one listener (mux/port-listener.ts, which an
 * fw app's port uses too) over a never-listening http.Server that HTTP/1.1
 * and WebSocket connections are handed to, with its header/request timeouts
 * armed from the gateway's `http` options.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Protocol } from '../core/request-context';
import { ADAPTER_TABLE, TRANSPORT_NAMES, type AdapterRow, type AdapterSet } from './adapter-table';
import { timeoutCheckInterval } from '../http/server-options';
import type { MuxTarget } from './mux/connection-mux';
import { PortListener, type BoundPort, type UdpTwin } from './mux/port-listener';
import type { GatewayOptions } from './options';
import type { TransportAdapter } from './transport-adapter';

/** The adapters and settings the listener routes to. */
export interface StreamListenerDeps {
  enabled(protocol: Protocol): boolean;
  options(): GatewayOptions;
  /** Each adapter is built when first needed (the gateway builds them lazily). */
  adapters: AdapterSet;
}

/** A table row as the listener drives it, whatever its adapter's class. */
type Row = AdapterRow<TransportAdapter>;

const ROWS: readonly (readonly [keyof typeof ADAPTER_TABLE, Row])[] = TRANSPORT_NAMES.map((name) => [name, ADAPTER_TABLE[name] as unknown as Row] as const);

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
    const { enabled, adapters } = this.#deps;
    // Rows are tried in table order (Connect before HTTP/JSON); nothing takes it: 404.
    const server = http.createServer(options, (req, res) => {
      for (const [name, row] of ROWS) {
        if (row.request !== undefined && enabled(row.protocol) && row.request(adapters.get(name), req, res)) return;
      }
      res.statusCode = 404;
      res.end();
    });
    server.timeout = this.#deps.options().http?.idleTimeout ?? 120_000;
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      // The adapter that takes an upgrade owns (and drains) the connection.
      this.#port?.adopt(socket);
      for (const [name, row] of ROWS) {
        const upgrade = row.upgrade;
        if (upgrade === undefined || !enabled(row.protocol)) continue;
        const adapter = adapters.get(name);
        if (!upgrade.accepts(adapter, req)) continue;
        upgrade.handle(adapter, req, socket, head);
        return;
      }
      socket.destroy();
    });
    return server;
  }

  /** Listens on `port` (0 = any), with `udp` on the same port number; resolves with the bound ports. */
  listen(port: number, host: string, udp?: UdpTwin): Promise<BoundPort> {
    const { enabled, adapters } = this.#deps;
    const options = this.#deps.options();
    const listener = new PortListener(this.#createHttpServer());
    this.#port = listener;
    // Each enabled row says which connections it takes: by their first bytes, or as HTTP/1.1 (requests and upgrades).
    const connections: Partial<Record<Exclude<MuxTarget, 'http'>, (socket: Socket) => void>> = {};
    let httpOn = false;
    for (const [name, row] of ROWS) {
      if (!enabled(row.protocol)) continue;
      if (row.request !== undefined || row.upgrade !== undefined) httpOn = true;
      const connection = row.connection;
      if (connection !== undefined) connections[connection.target] = (socket) => connection.serve(adapters.get(name), socket);
    }
    return listener.listen(port, host, {
      mux: { ...options.tcp, maxConnections: options.maxConnections, maxConnectionsPerAddress: options.maxConnectionsPerAddress },
      http: httpOn,
      grpc: connections.grpc,
      tcp: connections.tcp,
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

  /**
   * Stops listening and closes every HTTP connection (other transports close
   * their own); resolves, on every call, once every connection is gone.
   */
  async close(): Promise<void> {
    const port = this.#port;
    if (port === undefined) return;
    port.cut(false);
    await port.closed();
  }
}
