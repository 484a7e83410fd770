/**
 * The table of transport adapters: one row per folder under runtime/gateway/
 * saying how the gateway builds it (its module and libraries load then, on
 * first use) and what it takes on the one port — a connection by its first
 * bytes, an HTTP/1.1 request, or an upgrade. The facade builds adapters
 * from here, the one-port listener routes through it, graceful shutdown and
 * hosting drain what was built. Adding a transport is a folder and a row
 * (docs/architecture.md, "Adding a transport").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Protocol } from '../core/request-context';
import type { ConnectGatewayConfig, ConnectTransport } from './connect/transport';
import type { GatewayCore } from './gateway-core';
import type { GrpcGatewayConfig } from './grpc/method-table';
import type { GrpcTransport } from './grpc/transport';
import type { HttpGatewayConfig, HttpTransport, HttpTransportDeps } from './http/transport';
import type { MuxTarget } from './mux/connection-mux';
import type { GatewayOptions } from './options';
import type { OutputBudget } from './output-budget';
import type { ServiceRegistry } from './registry';
import type { TcpTransport } from './tcp/transport';
import type { TransportAdapter, TransportName } from './transport-adapter';
import type { UdpGatewayConfig, UdpTransport } from './udp/transport';
import type { WebSocketGatewayConfig, WebSocketTransport } from './websocket/transport';

/** Each transport folder's adapter class. */
export interface AdapterTypes {
  http: HttpTransport;
  connect: ConnectTransport;
  websocket: WebSocketTransport;
  grpc: GrpcTransport;
  udp: UdpTransport;
  tcp: TcpTransport;
}

/** What building an adapter may read from the gateway (every accessor is read per use: `configure*` may swap it). */
export interface AdapterHost {
  readonly core: GatewayCore;
  readonly registry: ServiceRegistry;
  options(): GatewayOptions;
  httpConfig(): HttpGatewayConfig;
  connectConfig(): ConnectGatewayConfig;
  websocketConfig(): WebSocketGatewayConfig;
  grpcConfig(): GrpcGatewayConfig;
  udpConfig(): UdpGatewayConfig;
  /** The gateway-wide cap on output for clients that do not read. */
  budget(): OutputBudget;
  metrics: HttpTransportDeps['metrics'];
  readiness: HttpTransportDeps['readiness'];
  /** Another adapter, built if need be (gRPC hands Connect its foreign HTTP/2 streams). */
  adapter<K extends TransportName>(name: K): AdapterTypes[K];
}

/** One row: how to build an adapter and what it takes on the one port. */
export interface AdapterRow<A extends TransportAdapter> {
  /** The gateway's flag for it (`enableHTTP`, …); Connect rides on HTTP. */
  readonly protocol: Protocol;
  build(host: AdapterHost): A;
  /** Connections it takes by their first bytes (the mux's target), and how it serves one. */
  readonly connection?: { readonly target: Exclude<MuxTarget, 'http'>; serve(adapter: A, socket: Socket): void };
  /** Takes an HTTP/1.1 request; false leaves it to the next row (rows are tried in table order). */
  readonly request?: (adapter: A, req: IncomingMessage, res: ServerResponse) => boolean;
  /** Takes HTTP upgrades it `accepts`. */
  readonly upgrade?: { accepts(adapter: A, req: IncomingMessage): boolean; handle(adapter: A, req: IncomingMessage, socket: Duplex, head: Buffer): void };
  /** A socket of its own, bound on the port's number by whoever listens (the gateway, or an fw app hosting it). */
  readonly socket?: { bind(adapter: A, port: number, host: string): Promise<number>; close(adapter: A): Promise<void> };
}

/**
 * Key of the gateway's adapters on each `get*Config()` object (a spread keeps
 * it): an fw app hosting the gateway reaches its transports through this
 * table, as the gateway's own port does (app-hosting.ts).
 */
export const HOSTED_ADAPTERS: unique symbol = Symbol('fw.hostedAdapters');

/** A hosting option object that carries its gateway's adapters. */
export interface CarriesAdapters {
  readonly [HOSTED_ADAPTERS]: AdapterSet;
}

/* eslint-disable @typescript-eslint/no-require-imports */
/** The rows, in the order HTTP/1.1 requests try them (Connect before HTTP/JSON). */
export const ADAPTER_TABLE: { readonly [K in TransportName]: AdapterRow<AdapterTypes[K]> } = {
  connect: {
    protocol: 'http',
    build: (h) => new (require('./connect/transport') as typeof import('./connect/transport')).ConnectTransport(h.core, h.registry, h.connectConfig),
    request: (connect, req, res) => connect.tryHandle(req, res),
  },
  http: {
    protocol: 'http',
    build: (h) => new (require('./http/transport') as typeof import('./http/transport')).HttpTransport({ core: h.core, registry: h.registry, config: h.httpConfig, metrics: h.metrics, readiness: h.readiness }),
    request: (http, req, res) => {
      http.handle(req, res);
      return true;
    },
  },
  websocket: {
    protocol: 'websocket',
    build: (h) => new (require('./websocket/transport') as typeof import('./websocket/transport')).WebSocketTransport(h.core, h.websocketConfig, h.budget()),
    upgrade: {
      accepts: (ws, req) => ws.accepts(req),
      handle: (ws, req, socket, head) => ws.handleUpgrade(req, socket, head),
    },
  },
  grpc: {
    protocol: 'grpc',
    build: (h) => {
      const grpc = new (require('./grpc/transport') as typeof import('./grpc/transport')).GrpcTransport(h.core, h.registry, () => h.options().grpc ?? {}, h.grpcConfig);
      // Connect and gRPC-Web over HTTP/2 share grpc-js's connections (grpc/foreign-streams.ts).
      grpc.handleForeignStreams((stream, headers, rawHeaders) => h.adapter('connect').tryHandleHttp2(stream, headers, rawHeaders));
      return grpc;
    },
    // grpc-js reads the socket itself: it is never resumed here.
    connection: { target: 'grpc', serve: (grpc, socket) => grpc.inject(socket) },
  },
  udp: {
    protocol: 'udp',
    build: (h) => new (require('./udp/transport') as typeof import('./udp/transport')).UdpTransport(h.core, h.udpConfig),
    socket: { bind: (udp, port, host) => udp.bind(port, host), close: (udp) => udp.close() },
  },
  tcp: {
    protocol: 'tcp',
    build: (h) => new (require('./tcp/transport') as typeof import('./tcp/transport')).TcpTransport(h.core, () => h.options().tcp ?? {}, h.budget()),
    connection: { target: 'tcp', serve: (tcp, socket) => tcp.handle(socket) },
  },
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** The table's names, in its order. */
export const TRANSPORT_NAMES = Object.keys(ADAPTER_TABLE) as TransportName[];

/** The adapters built on first use, by name. */
export class AdapterSet {
  readonly #built: { [K in TransportName]?: AdapterTypes[K] } = {};
  readonly #host: AdapterHost;

  /** `host` holds plain values and functions (it is copied once, with `adapter` added). */
  constructor(host: Omit<AdapterHost, 'adapter'>) {
    this.#host = { ...host, adapter: (name) => this.get(name) };
  }

  /** The adapter named `name`, built now if it was not yet. */
  get<K extends TransportName>(name: K): AdapterTypes[K] {
    const built = this.#built[name];
    if (built !== undefined) return built;
    const row = ADAPTER_TABLE[name] as AdapterRow<AdapterTypes[K]>;
    const adapter = row.build(this.#host);
    (this.#built as Record<K, AdapterTypes[K]>)[name] = adapter;
    return adapter;
  }

  /** `config` with these adapters under {@link HOSTED_ADAPTERS}, for an fw app hosting the gateway. */
  carriedBy<T extends object>(config: T): T & CarriesAdapters {
    return Object.assign(config, { [HOSTED_ADAPTERS]: this }) as T & CarriesAdapters;
  }

  /** The adapters built so far, in table order. */
  built(): TransportAdapter[] {
    const out: TransportAdapter[] = [];
    for (const name of TRANSPORT_NAMES) {
      const adapter = this.#built[name];
      if (adapter !== undefined) out.push(adapter);
    }
    return out;
  }
}
