/**
 * Hosting a protocol gateway's transports on an fw app's one port (spec
 * 4.10: `app.withOptions({ websocket, grpc, udp, tcp })` with the objects
 * `gateway.get*Config()` return). runtime/http defines only the hook: each of
 * those objects carries, under {@link PORT_HOST}, the factory of the listener
 * that serves the port (runtime/gateway/app-hosting.ts), so the app never
 * imports the gateway and an HTTP-only app never loads it.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** Key of the listener factory on every `gateway.get*Config()` object. */
export const PORT_HOST: unique symbol = Symbol.for('fw.portHost');

/** What listens on an app's port when gateway transports share it. */
export interface PortHost {
  /** Binds TCP (and UDP on the same port number); resolves once everything listens. */
  listen(port: number, hostname: string | undefined): Promise<void>;
  /** The bound TCP address, or null when not listening. */
  address(): AddressInfo | null;
  /** True between a successful `listen` and `close`. */
  readonly listening: boolean;
  /** Stops accepting, drains the gateway's connections and HTTP, cuts what is still busy after `graceMs`. */
  close(graceMs: number): Promise<void>;
}

/** Builds the {@link PortHost} over the app's http.Server; `options` is read at each listen and upgrade. */
export type PortHostFactory = <Req extends typeof IncomingMessage, Res extends typeof ServerResponse<InstanceType<Req>>>(
  server: Server<Req, Res>,
  options: () => GatewayHostingOptions,
) => PortHost;

/**
 * Graceful stop of the connections handed to the gateway: lets their calls
 * finish within `graceMs`, then cuts them and waits for the handlers; each
 * `gateway.get*Config()` object carries it, and the app's `close()` calls it.
 */
export type HostedDrain = (graceMs: number) => Promise<void>;

/** Carried by each hosting option object: the gateway's listener factory (and its drain). */
export interface PortHostCarrier {
  readonly [PORT_HOST]: PortHostFactory;
  drain?: HostedDrain;
}

/** `app.withOptions({ websocket })`: what `gateway.getWebSocketConfig()` returns. */
export interface HostedWebSocketOptions extends PortHostCarrier {
  /** Upgrade requests to this path (query ignored) go to `handleUpgrade`. */
  path: string;
  /** Takes over an HTTP upgrade. */
  handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/** `app.withOptions({ grpc })`: what `gateway.getGRPCConfig()` returns. */
export interface HostedGrpcOptions extends PortHostCarrier {
  /** Serves an h2c connection whose first bytes are still unread (never resumed by the app). */
  injectConnection: (socket: Duplex) => void;
}

/** `app.withOptions({ tcp })`: what `gateway.getTCPConfig()` returns. */
export interface HostedTcpOptions extends PortHostCarrier {
  /** Serves a TCP frame-protocol connection (first byte 0x01). */
  handleConnection: (socket: Socket) => void;
  /** TCP keep-alive on the shared listener's sockets; default the app's `keepAlive`. */
  keepAlive?: boolean;
  /** Nagle off on the shared listener's sockets; default true. */
  noDelay?: boolean;
  /** Connections the shared port holds at once; default 10000. */
  maxConnections?: number;
  /** Connections one client address holds at once on the shared port; default 256, 0 = no cap. */
  maxConnectionsPerAddress?: number;
}

/** `app.withOptions({ udp })`: what `gateway.getUDPConfig()` returns. */
export interface HostedUdpOptions extends PortHostCarrier {
  /** Port to bind; default the app's port number. */
  port?: number;
  /** Binds the datagram socket; resolves with the bound port. */
  bind: (port: number, host: string) => Promise<number>;
  /** Closes the datagram socket. */
  close: () => Promise<void>;
}

/**
 * The hosting keys of `HttpServerOptions` (plus the two HTTP options the mux reads).
 *
 * @example
 * const app = server.http();
 * app.use('/api', gateway.middleware());
 * app.withOptions({ websocket: gateway.getWebSocketConfig(), grpc: gateway.getGRPCConfig(), udp: gateway.getUDPConfig(), tcp: gateway.getTCPConfig() });
 * await app.listen(3000); // HTTP, WebSocket, gRPC and TCP frames on TCP 3000, UDP on 3000
 */
export interface GatewayHostingOptions {
  websocket?: HostedWebSocketOptions;
  grpc?: HostedGrpcOptions;
  udp?: HostedUdpOptions;
  tcp?: HostedTcpOptions;
  keepAlive?: boolean;
  headersTimeout?: number;
}

const HOSTING_KEYS = ['websocket', 'grpc', 'udp', 'tcp'] as const;
const FUNCTIONS: Record<(typeof HOSTING_KEYS)[number], readonly string[]> = {
  websocket: ['handleUpgrade'],
  grpc: ['injectConnection'],
  udp: ['bind', 'close'],
  tcp: ['handleConnection'],
};
const GETTERS: Record<(typeof HOSTING_KEYS)[number], string> = {
  websocket: 'getWebSocketConfig',
  grpc: 'getGRPCConfig',
  udp: 'getUDPConfig',
  tcp: 'getTCPConfig',
};

/** Throws a `TypeError` naming the first malformed hosting option. */
export function validateHostingOptions(options: GatewayHostingOptions): void {
  for (const key of HOSTING_KEYS) {
    const value: unknown = options[key];
    if (value === undefined) continue;
    if (value === null || typeof value !== 'object') throw new TypeError(`withOptions(): ${key} must be the object gateway.${GETTERS[key]}() returns`);
    for (const name of FUNCTIONS[key]) {
      if (typeof (value as Record<string, unknown>)[name] !== 'function') throw new TypeError(`withOptions(): ${key}.${name} must be a function (pass gateway.${GETTERS[key]}())`);
    }
  }
  const path = options.websocket?.path;
  if (options.websocket !== undefined && (typeof path !== 'string' || !path.startsWith('/'))) throw new TypeError('withOptions(): websocket.path must be a string starting with /');
  const port = options.udp?.port;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new TypeError('withOptions(): udp.port must be an integer from 0 to 65535');
  for (const key of HOSTING_KEYS) {
    const value = options[key] as Partial<PortHostCarrier> | undefined;
    if (value !== undefined && typeof value[PORT_HOST] !== 'function') {
      throw new TypeError(`withOptions(): ${key} lacks the gateway's port listener; pass gateway.${GETTERS[key]}() (or spread it) rather than a hand-made object`);
    }
  }
}

/** The gateway's listener factory when any hosting key is set, i.e. `listen` must go through it; else undefined. */
export function portHostFactory(options: GatewayHostingOptions): PortHostFactory | undefined {
  for (const key of HOSTING_KEYS) {
    const value = options[key];
    if (value !== undefined) return value[PORT_HOST];
  }
  return undefined;
}
