/**
 * The gateway's listener for an fw app's one port (spec 4.10: `app.withOptions({
 * websocket, grpc, udp, tcp })`). WebSocket upgrades on the config's path go
 * to its `handleUpgrade`; with `grpc` or `tcp` the port becomes the gateway's
 * connection mux (HTTP/1.1 → the app's http.Server, h2c → `injectConnection`,
 * byte 0x01 → `handleConnection`); `udp` binds the same port number. The app
 * reaches it through the hook runtime/http defines (`PORT_HOST` on each
 * `gateway.get*Config()` object), so runtime/http never imports the gateway.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { GatewayHostingOptions, HostedDrain, HostedUdpOptions, PortHost, PortHostFactory } from '../http/gateway-hosting';
import { createMuxServer } from './mux/connection-mux';

const HOSTING_KEYS = ['websocket', 'grpc', 'udp', 'tcp'] as const;

const UDP_ATTEMPTS = 10;
const MAX_SNIFF_MS = 10_000;

/** Path of an upgrade request; fw's `req.url` is absolute, its `rawUrl` is what Node read. */
function upgradePath(req: IncomingMessage): string {
  const raw = (req as IncomingMessage & { rawUrl?: unknown }).rawUrl;
  const url = typeof raw === 'string' ? raw : (req.url ?? '/');
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * The listening side of an app that hosts gateway transports: either the
 * app's http.Server itself (WebSocket/UDP only) or a mux in front of it.
 * Tracks the sockets it hands to stream protocols so `close` can end them.
 */
export class HostedListener<Req extends typeof IncomingMessage = typeof IncomingMessage, Res extends typeof ServerResponse<InstanceType<Req>> = typeof ServerResponse> implements PortHost {
  readonly #server: Server<Req, Res>;
  readonly #current: () => GatewayHostingOptions;
  /** The net.Server bound to the port: the mux, or the http.Server itself. */
  #listener: NetServer | null = null;
  /** Mux sockets still being classified. */
  readonly #sniffing = new Set<Socket>();
  /** Sockets owned by WebSocket, gRPC or TCP frames (no HTTP request lifecycle to wait for). */
  readonly #streams = new Set<Duplex>();
  /** The UDP hook bound by `listen`, closed by `close`. */
  #udpBound: HostedUdpOptions | null = null;

  /** `options` is read at each listen and upgrade, so later `withOptions` calls count. */
  constructor(server: Server<Req, Res>, options: () => GatewayHostingOptions) {
    this.#server = server;
    this.#current = options;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.#upgrade(req, socket, head));
  }

  get #options(): GatewayHostingOptions {
    return this.#current();
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const ws = this.#options.websocket;
    if (ws === undefined || this.#listener === null || upgradePath(req) !== ws.path) {
      // Same answer as a server without WebSocket support would give the handshake: none, 404 and close.
      socket.on('error', () => socket.destroy());
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.#track(socket);
    ws.handleUpgrade(req, socket, head);
  }

  #track(socket: Duplex): void {
    this.#streams.add(socket);
    socket.once('close', () => this.#streams.delete(socket));
  }

  /** Binds TCP (and UDP on the same port number); resolves once everything listens. */
  async listen(port: number, hostname: string | undefined): Promise<void> {
    if (this.#listener !== null) throw new Error('listen(): the app is already listening; close() it first');
    for (let attempt = 1; ; attempt++) {
      await this.#listenStream(port, hostname);
      const udp = this.#options.udp;
      if (udp === undefined) return;
      const address = this.address() as AddressInfo;
      try {
        await udp.bind(udp.port ?? address.port, address.address);
        this.#udpBound = udp;
        return;
      } catch (error) {
        await this.#closeListener();
        // With an ephemeral port the UDP twin may be taken: pick another pair.
        const retry = port === 0 && udp.port === undefined && attempt < UDP_ATTEMPTS && (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
        if (!retry) throw error;
      }
    }
  }

  #listenStream(port: number, hostname: string | undefined): Promise<void> {
    const listener = this.#options.grpc !== undefined || this.#options.tcp !== undefined ? this.#createMux() : this.#server;
    return new Promise<void>((resolve, reject) => {
      const onError = (error: Error): void => {
        listener.off('listening', onListening);
        // Stop the timeout checks the mux path armed on the http.Server.
        if (listener !== this.#server) this.#server.close();
        reject(error);
      };
      const onListening = (): void => {
        listener.off('error', onError);
        this.#listener = listener;
        resolve();
      };
      listener.once('error', onError);
      listener.once('listening', onListening);
      listener.listen(port, hostname);
    });
  }

  #createMux(): NetServer {
    const { grpc, tcp } = this.#options;
    const server = this.#server;
    const mux = createMuxServer(
      {
        http: (socket) => {
          this.#sniffing.delete(socket);
          server.emit('connection', socket);
          socket.resume();
        },
        grpc: grpc === undefined ? undefined : (socket) => {
          this.#sniffing.delete(socket);
          this.#track(socket);
          // grpc-js reads the socket itself; resuming here breaks every call (DESIGN "Gateway").
          grpc.injectConnection(socket);
        },
        tcp: tcp === undefined ? undefined : (socket) => {
          this.#sniffing.delete(socket);
          this.#track(socket);
          tcp.handleConnection(socket);
          socket.resume();
        },
      },
      {
        noDelay: tcp?.noDelay !== false,
        keepAlive: tcp?.keepAlive ?? this.#options.keepAlive !== false,
        sniffTimeout: Math.min(MAX_SNIFF_MS, this.#options.headersTimeout || MAX_SNIFF_MS),
        maxConnections: tcp?.maxConnections,
        maxConnectionsPerAddress: tcp?.maxConnectionsPerAddress,
      },
    );
    mux.on('connection', (socket: Socket) => {
      this.#sniffing.add(socket);
      socket.once('close', () => this.#sniffing.delete(socket));
    });
    // The http.Server never listens itself: 'listening' arms its headersTimeout/requestTimeout checks.
    server.emit('listening');
    return mux;
  }

  /** The bound TCP address, or null when not listening. */
  address(): AddressInfo | null {
    const address = this.#listener?.address();
    return address !== null && typeof address === 'object' ? address : null;
  }

  /** True between a successful `listen` and `close`. */
  get listening(): boolean {
    return this.#listener !== null;
  }

  /**
   * Stops accepting, lets HTTP requests in flight finish (idle keep-alive
   * connections close at once) and the gateway drain its own connections
   * (WebSocket, gRPC, TCP frames, UDP replies), then closes UDP; cuts
   * whatever is still open after `graceMs`.
   */
  async close(graceMs: number): Promise<void> {
    const drains = new Set<HostedDrain>();
    for (const key of HOSTING_KEYS) {
      const drain = this.#options[key]?.drain;
      if (typeof drain === 'function') drains.add(drain);
    }
    // The gateway's drain starts first: past graceMs it ends open streams (UNAVAILABLE) before the HTTP cut below.
    const drained = Promise.all([...drains].map((drain) => drain(graceMs)));
    const closing = this.#closeListener(graceMs, drains.size > 0);
    const udp = this.#udpBound;
    this.#udpBound = null;
    await drained;
    if (udp !== null) await udp.close();
    await closing;
  }

  #closeListener(graceMs = 0, gatewayDrains = false): Promise<void> {
    const listener = this.#listener;
    this.#listener = null;
    if (listener === null) return Promise.resolve();
    const server = this.#server;
    const muxed = listener !== server;
    for (const socket of this.#sniffing) socket.destroy();
    // A draining gateway ends its connections itself once their calls are done.
    if (!gatewayDrains) for (const socket of this.#streams) socket.end();
    return new Promise<void>((resolve, reject) => {
      const sweep = setInterval(() => server.closeIdleConnections(), 25);
      const cut = (): void => {
        server.closeAllConnections();
        for (const socket of this.#streams) socket.destroy();
      };
      // With a gateway draining, one more turn lets the streams' last error lines leave before the cut.
      const force = setTimeout(() => (gatewayDrains ? setImmediate(cut) : cut()), graceMs);
      listener.close((error) => {
        clearInterval(sweep);
        clearTimeout(force);
        if (error !== undefined) reject(error);
        else resolve();
      });
      // A never-listening http.Server: close() only stops its timeout checks and idle connections.
      if (muxed) server.close();
      else server.closeIdleConnections();
    });
  }
}

/** The {@link PortHostFactory} every `gateway.get*Config()` object carries. */
export const hostOnAppPort: PortHostFactory = (server, options) => new HostedListener(server, options);
