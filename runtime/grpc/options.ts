/**
 * The gRPC options of spec 4.8 and their translation to grpc-js channel
 * options. grpc-js 1.14's server honours only some `grpc.*` keys; the rest are
 * still passed (they document intent and take effect should grpc-js implement
 * them) and docs/grpc.md says which ones are enforced.
 */
import type { ChannelOptions } from '@grpc/grpc-js';
import { http2ChannelOptions, resolveHttp2Limits, type Http2LimitOptions } from './h2-limits';
import type { ProductionOptions } from '../workers/production-options';

/** `withOptions({grpc: {...}})` (spec 4.8, plus fw's own keys at the end). */
export interface GrpcServerOptions extends Http2LimitOptions {
  /** Largest request message accepted, in bytes (default 4 MiB). Larger → RESOURCE_EXHAUSTED. */
  maxReceiveMessageLength?: number;
  /** Largest response message sent, in bytes (default 4 MiB). */
  maxSendMessageLength?: number;
  keepaliveTimeMs?: number;
  keepaliveTimeoutMs?: number;
  keepalivePermitWithoutCalls?: boolean;
  http2MaxPingsWithoutData?: number;
  http2MinTimeBetweenPingsMs?: number;
  http2MaxPingStrikes?: number;
  /** Close (GOAWAY) a connection with no open stream for this long (ms); default 120000. */
  maxConnectionIdle?: number;
  /** Close a connection after this age (ms), letting calls finish within `maxConnectionAgeGrace`. */
  maxConnectionAge?: number;
  maxConnectionAgeGrace?: number;
  /** Response compression; only `gzip`. */
  compression?: 'gzip' | 'none';
  compressionOptions?: {
    /** gzip level 1 (fastest) to 9 (smallest); default 6. */
    level?: number;
    /** Only messages larger than this many bytes are compressed; default 1024. */
    threshold?: number;
  };
  /** Serve grpc.reflection (v1 and v1alpha) for every proto-defined service. */
  reflection?: boolean;
  /** Interval (ms) at which health `Watch` re-emits the current status; default 5000 (spec 4.7). */
  healthWatchIntervalMs?: number;
  /** `close()` waits this long (ms) for calls to finish before cancelling them; default 10000. */
  shutdownTimeoutMs?: number;
  /** Serve over TLS instead of plaintext h2c. */
  tls?: GrpcTlsOptions;
  /**
   * What carries the gRPC layer: `'node-http2'` (default) is fw's own server
   * on Node's HTTP/2; `'grpc-js'` is @grpc/grpc-js's Server, kept as a fallback.
   */
  engine?: GrpcServerEngine;
}

/** The two gRPC server engines (docs/grpc.md "Server engine"). */
export type GrpcServerEngine = 'node-http2' | 'grpc-js';

/** The engine `options` choose; throws a RangeError for anything else. */
export function serverEngine(options: { engine?: unknown } = {}): GrpcServerEngine {
  const engine = options.engine ?? 'node-http2';
  if (engine !== 'node-http2' && engine !== 'grpc-js') throw new RangeError(`grpc.engine must be 'node-http2' or 'grpc-js', got ${String(engine)}`);
  return engine;
}

/** TLS material for `withOptions({grpc: {tls}})` (PEM text or buffers). */
export interface GrpcTlsOptions {
  cert: string | Buffer;
  key: string | Buffer;
  /** CA that client certificates must chain to (mutual TLS). */
  ca?: string | Buffer;
  /** Refuse clients without a certificate signed by `ca`; default false. */
  requireClientCert?: boolean;
}

/**
 * Options of `app.withOptions()` for a gRPC application; `workers`,
 * `drainDelay` and `handleSignals` are the production options the gateway
 * and `server.http()` take (docs/production.md).
 */
export interface GrpcApplicationOptions extends ProductionOptions {
  /** Port to bind; default `PORT`, else 0 (any free port). */
  port?: number;
  /** Interface to bind; default `HOST`, else `0.0.0.0`. */
  hostname?: string;
  grpc?: GrpcServerOptions;
}

/** Default message size limit (DESIGN.md "Defaults that keep users safe"). */
export const DEFAULT_MAX_MESSAGE_LENGTH = 4 * 1024 * 1024;

/** Which grpc-js key each spec option becomes (the table in docs/grpc.md). */
export const CHANNEL_OPTION_KEYS = {
  maxReceiveMessageLength: 'grpc.max_receive_message_length',
  maxSendMessageLength: 'grpc.max_send_message_length',
  keepaliveTimeMs: 'grpc.keepalive_time_ms',
  keepaliveTimeoutMs: 'grpc.keepalive_timeout_ms',
  keepalivePermitWithoutCalls: 'grpc.keepalive_permit_without_calls',
  http2MaxPingsWithoutData: 'grpc.http2.max_pings_without_data',
  http2MinTimeBetweenPingsMs: 'grpc.http2.min_ping_interval_without_data_ms',
  http2MaxPingStrikes: 'grpc.http2.max_ping_strikes',
  maxConnectionIdle: 'grpc.max_connection_idle_ms',
  maxConnectionAge: 'grpc.max_connection_age_ms',
  maxConnectionAgeGrace: 'grpc.max_connection_age_grace_ms',
} as const satisfies Partial<Record<keyof GrpcServerOptions, string>>;

type NumericKey = Exclude<keyof typeof CHANNEL_OPTION_KEYS, 'keepalivePermitWithoutCalls'>;

/**
 * grpc-js server options for `options`. Throws a RangeError naming the option
 * when a value is not a non-negative integer, so a typo fails at start-up.
 */
export function toChannelOptions(options: GrpcServerOptions = {}): ChannelOptions {
  const out: ChannelOptions = {
    'grpc.max_receive_message_length': DEFAULT_MAX_MESSAGE_LENGTH,
    'grpc.max_send_message_length': DEFAULT_MAX_MESSAGE_LENGTH,
    ...http2ChannelOptions(resolveHttp2Limits(options)),
  };
  for (const key of Object.keys(CHANNEL_OPTION_KEYS) as (keyof typeof CHANNEL_OPTION_KEYS)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (key === 'keepalivePermitWithoutCalls') {
      out[CHANNEL_OPTION_KEYS[key]] = value ? 1 : 0;
      continue;
    }
    out[CHANNEL_OPTION_KEYS[key as NumericKey]] = checkInteger(key, value);
  }
  if (options.http2MinTimeBetweenPingsMs !== undefined) {
    // grpc-core names the same limit twice; set both so either reader finds it.
    out['grpc.http2.min_time_between_pings_ms'] = options.http2MinTimeBetweenPingsMs;
  }
  return out;
}

/** Validated compression settings, or undefined when compression is off. */
export interface CompressionSettings {
  level: number;
  threshold: number;
}

/** Reads `compression` / `compressionOptions`, refusing out-of-range values. */
export function toCompressionSettings(options: GrpcServerOptions = {}): CompressionSettings | undefined {
  if (options.compression === undefined || options.compression === 'none') return undefined;
  if (options.compression !== 'gzip') throw new RangeError(`grpc.compression must be 'gzip' or 'none', got ${String(options.compression)}`);
  const level = options.compressionOptions?.level ?? 6;
  const threshold = options.compressionOptions?.threshold ?? 1024;
  if (!Number.isInteger(level) || level < 1 || level > 9) throw new RangeError(`grpc.compressionOptions.level must be an integer 1 to 9, got ${String(level)}`);
  checkInteger('compressionOptions.threshold', threshold);
  return { level, threshold };
}

function checkInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new RangeError(`grpc.${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}
