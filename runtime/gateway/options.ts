/**
 * Options of `new ProtocolGateway(options)` and `createProtocolGateway`
 * (spec 4.10), plus the `configureErrorHandling` shape.
 */
import type { Protocol } from '../core/request-context';
import type { ServiceError, TransformedError } from './errors';
import type { ConnectGatewayConfig } from './connect/transport';
import type { GrpcGatewayOptions } from './grpc/transport';
import type { HttpGatewayConfig } from './http/transport';
import type { MuxOptions } from './mux/connection-mux';
import type { TcpGatewayConfig } from './tcp/transport';
import type { UdpGatewayConfig } from './udp/transport';
import type { ValidationEngine } from '../validation/compiled-validator';
import type { WebSocketGatewayConfig } from './websocket/transport';
import type { ProductionOptions } from '../workers/production-options';

/** `new ProtocolGateway(options)` (spec 4.10); every protocol is on unless its flag is false. */
export interface GatewayOptions extends ProductionOptions {
  /** Port for every protocol (TCP for HTTP/WebSocket/gRPC/frames, UDP on the same number); default `PORT`, else 0 (any free port). */
  port?: number;
  /** Interface to bind; default `HOST`, else `0.0.0.0`. */
  host?: string;
  /** Serve `GET /metrics`, `/ready` and `/health` on this port (same host) instead of the service port; 0 picks a free one. */
  adminPort?: number;
  enableHTTP?: boolean;
  enableWebSocket?: boolean;
  enableGRPC?: boolean;
  enableUDP?: boolean;
  enableTCP?: boolean;
  /** How long `close()` lets calls in flight finish (ms) before cutting connections and aborting handlers' signals; default 10000. */
  shutdownTimeout?: number;
  http?: HttpGatewayConfig & {
    /** Socket inactivity timeout for HTTP connections (ms); default 120000. */
    idleTimeout?: number;
    /** Time allowed to receive a request's headers (ms); default 60000 → 408. */
    headersTimeout?: number;
    /** Time allowed to receive a whole request (ms); default 120000 → 408. */
    requestTimeout?: number;
  };
  websocket?: WebSocketGatewayConfig;
  /** Connect and gRPC-Web on the HTTP port (docs/gateway.md "Connect and gRPC-Web"). */
  connect?: ConnectGatewayConfig;
  grpc?: GrpcGatewayOptions;
  udp?: UdpGatewayConfig;
  tcp?: TcpGatewayConfig & MuxOptions;
  /** Generated services: accept and drop unknown JSON members instead of refusing them (protobuf's option name); default false. */
  ignoreUnknownFields?: boolean;
  /** Generated services: validate responses against their buf.validate rules too (development aid, costs a re-encode); default false. */
  validateResponses?: boolean;
  /** Generated services: `compiled` (default) checks buf.validate rules with the validators fw-gen compiled, `protovalidate` with protovalidate's interpreter (same verdicts; the way back if they ever differ). */
  validation?: ValidationEngine;
  /**
   * Gateway-wide cap on output buffered for clients that do not read, in
   * bytes (beyond each connection's own `maxBufferedBytes`): past it the
   * WebSocket and TCP-frame connections holding the most are cut ("slow
   * consumer"). Default 128 MiB.
   */
  maxBufferedOutputBytes?: number;
  /** Connections the one port holds at once, every protocol together; more are closed on arrival. Default 10000. */
  maxConnections?: number;
  /** Connections one client address holds at once on the one port; more are closed on arrival. Default 256; 0 = no cap. */
  maxConnectionsPerAddress?: number;
}

/** `createProtocolGateway({protocols, port})`. */
export interface CreateGatewayOptions extends Omit<GatewayOptions, 'enableHTTP' | 'enableWebSocket' | 'enableGRPC' | 'enableUDP' | 'enableTCP'> {
  protocols: Protocol[];
}

/** `configureErrorHandling({transformError})`: replaces the default rendering per protocol. */
export interface ErrorHandlingConfig {
  transformError?: (error: ServiceError, protocol: Protocol) => TransformedError | Record<string, unknown>;
}

/** Where the gateway listens after `listen()`. */
export interface GatewayAddress {
  host: string;
  /** TCP port shared by HTTP, WebSocket, gRPC and TCP frames (undefined when only UDP is on). */
  port: number | undefined;
  /** UDP port (undefined when UDP is off). */
  udpPort: number | undefined;
  /** The admin port (`adminPort` option), when set. */
  adminPort?: number;
}
