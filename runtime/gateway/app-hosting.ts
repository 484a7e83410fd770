/**
 * The gateway's listener for an fw app's one port (`app.withOptions({
 * websocket, grpc, udp, tcp })`): the same one listener as the gateway's own
 * port, reaching the transports through the same adapter table
 * (adapter-table.ts). Each hosting key turns on the table row of that name,
 * for the gateway whose `get*Config()` object it is: WebSocket upgrades on
 * the config's path go to the row's upgrade; with `grpc` or `tcp` the port
 * becomes the connection mux (HTTP/1.1 to the app's http.Server, h2c and
 * byte 0x01 to those rows' connections); `udp` binds the row's socket on the
 * same port number. HTTP/JSON and Connect reach the app through
 * `gateway.middleware()`. The app finds this listener through the hook
 * runtime/http defines (`PORT_HOST` on each `get*Config()` object), so
 * runtime/http never imports the gateway.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { GatewayHostingOptions, HostedDrain, PortHost, PortHostFactory } from '../http/gateway-hosting';
import { ADAPTER_TABLE, HOSTED_ADAPTERS, type AdapterRow, type AdapterSet, type AdapterTypes, type CarriesAdapters } from './adapter-table';
import type { MuxTarget } from './mux/connection-mux';
import { PortListener, type UdpTwin } from './mux/port-listener';

/** The hosting keys, each named after the table row it turns on. */
const HOSTING_KEYS = ['websocket', 'grpc', 'udp', 'tcp'] as const;
type HostingKey = (typeof HOSTING_KEYS)[number];

/** A hosted row: its table row and the adapter it drives, built on first use by its gateway. */
interface HostedRow<K extends HostingKey> {
  readonly row: AdapterRow<AdapterTypes[K]>;
  adapter(): AdapterTypes[K];
}

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

  /** The row `key` turns on, for the gateway whose config object it is; undefined when the key is not set. */
  #hosted<K extends HostingKey>(key: K): HostedRow<K> | undefined {
    const config = this.#options[key] as (GatewayHostingOptions[K] & Partial<CarriesAdapters>) | undefined;
    if (config === undefined) return undefined;
    const adapters: AdapterSet | undefined = config[HOSTED_ADAPTERS];
    if (adapters === undefined) throw new TypeError(`withOptions(): ${key} lacks the gateway's adapters; pass the object the gateway's get*Config() returns (or spread it)`);
    return { row: ADAPTER_TABLE[key] as AdapterRow<AdapterTypes[K]>, adapter: () => adapters.get(key) };
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = this.#options.websocket?.path;
    const ws = path === undefined || !this.#port.listening || upgradePath(req) !== path ? undefined : this.#hosted('websocket');
    const upgrade = ws?.row.upgrade;
    if (ws === undefined || upgrade === undefined) {
      // Same answer as a server without WebSocket support would give the handshake: none, 404 and close.
      socket.on('error', () => socket.destroy());
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.#port.adopt(socket);
    upgrade.handle(ws.adapter(), req, socket, head);
  }

  /** What the mux hands to each hosted row that takes connections (gRPC, TCP frames), by its connection target. */
  #connections(): Partial<Record<Exclude<MuxTarget, 'http'>, (socket: Socket) => void>> {
    const out: Partial<Record<Exclude<MuxTarget, 'http'>, (socket: Socket) => void>> = {};
    const add = <K extends HostingKey>(key: K): void => {
      const hosted = this.#hosted(key);
      const connection = hosted?.row.connection;
      if (hosted !== undefined && connection !== undefined) out[connection.target] = (socket) => connection.serve(hosted.adapter(), socket);
    };
    for (const key of HOSTING_KEYS) add(key);
    return out;
  }

  /** The hosted row with a socket of its own (UDP), bound on the app's port number (or the config's `port`). */
  #udpTwin(): UdpTwin | undefined {
    const twin = <K extends HostingKey>(key: K): UdpTwin | undefined => {
      const hosted = this.#hosted(key);
      const socket = hosted?.row.socket;
      if (hosted === undefined || socket === undefined) return undefined;
      return { port: this.#options.udp?.port, bind: (port, host) => socket.bind(hosted.adapter(), port, host), close: () => socket.close(hosted.adapter()) };
    };
    for (const key of HOSTING_KEYS) {
      const found = twin(key);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Binds TCP (and UDP on the same port number); resolves once everything listens. */
  async listen(port: number, hostname: string | undefined): Promise<void> {
    const { grpc, tcp } = this.#options;
    // gRPC or TCP frames need the mux in front of the app's server; HTTP and WebSocket alone do not.
    const mux = grpc === undefined && tcp === undefined ? undefined : {
      noDelay: tcp?.noDelay !== false,
      keepAlive: tcp?.keepAlive ?? this.#options.keepAlive !== false,
      sniffTimeout: Math.min(MAX_SNIFF_MS, this.#options.headersTimeout || MAX_SNIFF_MS),
      maxConnections: tcp?.maxConnections,
      maxConnectionsPerAddress: tcp?.maxConnectionsPerAddress,
    };
    // Checked before binding: a key without its gateway's adapters throws here, not on the first connection.
    for (const key of HOSTING_KEYS) this.#hosted(key);
    await this.#port.listen(port, hostname, { mux, http: true, ...this.#connections(), udp: this.#udpTwin() });
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
