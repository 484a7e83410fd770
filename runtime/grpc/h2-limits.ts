/**
 * HTTP/2 limits for every grpc-js server fw runs (`server.grpc()` and the
 * gateway's one port): a cap on concurrent streams per connection, bounded
 * session memory, idle connections closed, and streams whose request never
 * completes reset. grpc-js leaves the first two unbounded and has no request
 * timeout at all, so one connection opening 100,000 streams with HEADERS and
 * no END_STREAM once grew a server by 600 MB.
 */
import http2 from 'node:http2';
import type { ChannelOptions, Server } from '@grpc/grpc-js';
import { PendingRequests, type PendingRequest } from './pending-requests';

/** The HTTP/2 options shared by `withOptions({grpc})` and the gateway's `grpc` options. */
export interface Http2LimitOptions {
  /** Streams one connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS); more are refused (RST_STREAM REFUSED_STREAM). Default 100. */
  maxConcurrentStreams?: number;
  /** Memory (MB) one connection's HTTP/2 session may hold before new streams are refused. Default 32. */
  maxSessionMemory?: number;
  /** Close (GOAWAY) a connection that has had no open stream for this long (ms). Default 120000. */
  maxConnectionIdle?: number;
  /**
   * A unary or server-streaming call must deliver its whole request
   * (END_STREAM) within this many ms after its HEADERS, else the stream is
   * reset with CANCEL: its handler cannot start before. Client and bidi
   * streams belong to their running handler and are bounded by
   * `maxConcurrentStreams` instead. Default 120000; 0 turns it off.
   */
  requestTimeout?: number;
  /**
   * Streams one connection may reset (RST_STREAM) within one second; past
   * that the connection is sent away (GOAWAY ENHANCE_YOUR_CALM). Stops
   * rapid-reset floods below the much larger burst nghttp2 itself allows.
   * fw's node:http2 engine only. Default 200; 0 turns it off.
   */
  maxResetsPerSecond?: number;
}

/** Safe defaults (DESIGN.md "Defaults that keep users safe"; docs/security.md). */
export const HTTP2_LIMIT_DEFAULTS: Required<Http2LimitOptions> = {
  maxConcurrentStreams: 100,
  maxSessionMemory: 32,
  maxConnectionIdle: 120_000,
  requestTimeout: 120_000,
  maxResetsPerSecond: 200,
};

function positiveInteger(name: string, value: unknown, allowZero: boolean): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new RangeError(`grpc.${name} must be a${allowZero ? ' non-negative' : ' positive'} integer, got ${String(value)}`);
  }
  return value;
}

/** The limits with defaults filled in; throws a RangeError naming a bad value. */
export function resolveHttp2Limits(options: Http2LimitOptions = {}): Required<Http2LimitOptions> {
  return {
    maxConcurrentStreams: positiveInteger('maxConcurrentStreams', options.maxConcurrentStreams ?? HTTP2_LIMIT_DEFAULTS.maxConcurrentStreams, false),
    maxSessionMemory: positiveInteger('maxSessionMemory', options.maxSessionMemory ?? HTTP2_LIMIT_DEFAULTS.maxSessionMemory, false),
    maxConnectionIdle: positiveInteger('maxConnectionIdle', options.maxConnectionIdle ?? HTTP2_LIMIT_DEFAULTS.maxConnectionIdle, false),
    requestTimeout: positiveInteger('requestTimeout', options.requestTimeout ?? HTTP2_LIMIT_DEFAULTS.requestTimeout, true),
    maxResetsPerSecond: positiveInteger('maxResetsPerSecond', options.maxResetsPerSecond ?? HTTP2_LIMIT_DEFAULTS.maxResetsPerSecond, true),
  };
}

/** grpc-js server options enforcing the limits (the request timeout is {@link watchRequestTimeouts}'s job). */
export function http2ChannelOptions(limits: Required<Http2LimitOptions>): ChannelOptions {
  return {
    'grpc.max_concurrent_streams': limits.maxConcurrentStreams,
    'grpc-node.max_session_memory': limits.maxSessionMemory,
    'grpc.max_connection_idle_ms': limits.maxConnectionIdle,
  };
}

const watched = new WeakSet<object>();

/**
 * Resets streams whose request is not complete within `timeoutMs`, on every
 * HTTP/2 server `server` runs so far (call again after binding or creating a
 * connection injector). grpc-js offers no hook for this, so its internal map
 * of HTTP/2 servers is read; a grpc-js without it fails loudly here instead of
 * silently serving without the limit. Returns a stop function.
 */
export function watchRequestTimeouts(server: Server, timeoutMs: number): () => void {
  if (timeoutMs === 0) return () => undefined;
  const internals = server as unknown as { http2Servers?: Map<http2.Http2Server, unknown>; handlers?: Map<string, { type?: string }> };
  const servers = internals.http2Servers;
  const handlers = internals.handlers;
  if (!(servers instanceof Map) || !(handlers instanceof Map)) throw new Error('grpc-js no longer exposes its HTTP/2 servers and handlers: fw cannot enforce grpc.requestTimeout (pin @grpc/grpc-js 1.14)');
  const pending = new PendingRequests(timeoutMs);
  const onStream = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, flags: number): void => {
    if ((flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0) return;
    const type = handlers.get(headers[':path'] ?? '')?.type;
    // Client and bidi streams: the handler already runs and owns the stream.
    if (type === 'clientStream' || type === 'bidi') return;
    // grpc-js keeps its call objects to itself: the list holds a small entry per stream instead.
    const entry: PendingRequest = { stream, pendingSince: 0, pendingPrev: undefined, pendingNext: undefined, pendingListed: false };
    pending.watch(entry);
    stream.once('close', () => pending.release(entry));
  };
  const attached: http2.Http2Server[] = [];
  for (const h2 of servers.keys()) {
    if (watched.has(h2)) continue;
    watched.add(h2);
    h2.on('stream', onStream);
    attached.push(h2);
  }
  return () => {
    pending.stop();
    for (const h2 of attached) {
      h2.off('stream', onStream);
      watched.delete(h2);
    }
  };
}
