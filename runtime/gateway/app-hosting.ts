/**
 * The gateway's listener for an fw app's one port (spec 4.10: `app.withOptions({
 * websocket, grpc, udp, tcp })`): the same one listener as the gateway's own
 * port. WebSocket upgrades on the config's path go to its `handleUpgrade`;
 * with `grpc` or `tcp` the port becomes the gateway's connection mux
 * (HTTP/1.1 → the app's http.Server, h2c → `injectConnection`, byte 0x01 →
 * `handleConnection`); `udp` binds the same port number. The app
 * reaches it through the hook runtime/http defines (`PORT_HOST` on each
 * `gateway.get*Config()` object), so runtime/http never imports the gateway.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { GatewayHostingOptions, HostedDrain, PortHost, PortHostFactory } from '../http/gateway-hosting';
import { PortListener } from './mux/port-listener';

const HOSTING_KEYS = ['websocket', 'grpc', 'udp', 'tcp'] as const;

const MAX_SNIFF_MS = 10_000;

/** Path of an upgrade request; fw's `req.url` is absolute, its `rawUrl` is what Node read. */
function upgradePath(req: IncomingMessage): string {
  const raw = (req as IncomingMessage & { rawUrl?: unknown }).rawUrl;
  const url = typeof raw === 'string' ? raw : (req.url ?? '/');
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * The listening side of an app that hosts gateway transports: the one
 * listener (mux/port-listener.ts, the gateway's own port's too) over the
 * app's http.Server, with WebSocket upgrades routed by path.
 */
export class HostedListener<Req extends typeof IncomingMessage = typeof IncomingMessage, Res extends typeof ServerResponse<InstanceType<Req>> = typeof ServerResponse> implements PortHost {
  readonly #current: () => GatewayHostingOptions;
  readonly #port: PortListener;

  /** `options` is read at each listen and upgrade, so later `withOptions` calls count. */
  constructor(server: Server<Req, Res>, options: () => GatewayHostingOptions) {
    this.#current = options;
    this.#port = new PortListener(server as unknown as Server);
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.#upgrade(req, socket, head));
  }

  get #options(): GatewayHostingOptions {
    return this.#current();
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const ws = this.#options.websocket;
    if (ws === undefined || !this.#port.listening || upgradePath(req) !== ws.path) {
      // Same answer as a server without WebSocket support would give the handshake: none, 404 and close.
      socket.on('error', () => socket.destroy());
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.#port.adopt(socket);
    ws.handleUpgrade(req, socket, head);
  }

  /** Binds TCP (and UDP on the same port number); resolves once everything listens. */
  async listen(port: number, hostname: string | undefined): Promise<void> {
    const { grpc, tcp, udp } = this.#options;
    // gRPC or TCP frames need the mux in front of the app's server; HTTP and WebSocket alone do not.
    const mux = grpc === undefined && tcp === undefined ? undefined : {
      noDelay: tcp?.noDelay !== false,
      keepAlive: tcp?.keepAlive ?? this.#options.keepAlive !== false,
      sniffTimeout: Math.min(MAX_SNIFF_MS, this.#options.headersTimeout || MAX_SNIFF_MS),
      maxConnections: tcp?.maxConnections,
      maxConnectionsPerAddress: tcp?.maxConnectionsPerAddress,
    };
    await this.#port.listen(port, hostname, {
      mux,
      http: true,
      grpc: grpc === undefined ? undefined : (socket) => grpc.injectConnection(socket),
      tcp: tcp === undefined ? undefined : (socket) => tcp.handleConnection(socket),
      udp,
    });
  }

  /** The bound TCP address, or null when not listening. */
  address(): AddressInfo | null {
    return this.#port.address();
  }

  /** True between a successful `listen` and `close`. */
  get listening(): boolean {
    return this.#port.listening;
  }

  /**
   * Stops accepting, lets HTTP requests in flight finish (idle keep-alive
   * connections close at once) and the gateway drain its own connections
   * (WebSocket, gRPC, TCP frames, UDP replies), then closes UDP; cuts
   * whatever is still open after `graceMs`.
   */
  async close(graceMs: number): Promise<void> {
    if (!this.#port.listening) return;
    const drains = new Set<HostedDrain>();
    for (const key of HOSTING_KEYS) {
      const drain = this.#options[key]?.drain;
      if (typeof drain === 'function') drains.add(drain);
    }
    // The gateway's drain starts first: past graceMs it ends open streams (UNAVAILABLE) before the HTTP cut below.
    const drained = Promise.all([...drains].map((drain) => drain(graceMs)));
    const closing = this.#closePort(graceMs, drains.size > 0);
    const udp = this.#port.takeUdp();
    await drained;
    if (udp !== undefined) await udp.close();
    await closing;
  }

  async #closePort(graceMs: number, gatewayDrains: boolean): Promise<void> {
    const port = this.#port;
    void port.drainHttp();
    // A draining gateway ends its connections itself once their calls are done.
    if (!gatewayDrains) port.endStreams();
    // Past graceMs a draining gateway ends each open stream with its UNAVAILABLE and then cuts its own
    // connections, as on its own port; cutting them here too would race those last frames (gRPC's status).
    const force = setTimeout(() => port.cut(!gatewayDrains), graceMs);
    try {
      await port.closed();
    } finally {
      clearTimeout(force);
    }
  }
}

/** The {@link PortHostFactory} every `gateway.get*Config()` object carries. */
export const hostOnAppPort: PortHostFactory = (server, options) => new HostedListener(server, options);
