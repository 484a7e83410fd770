/**
 * fw's gRPC server on `node:http2` (the default engine of `server.grpc()`
 * and of the gateway's gRPC transport). HTTP/2 itself — HPACK, flow control,
 * SETTINGS — stays Node's; this is only the gRPC layer grpc-js's Server
 * would otherwise add: routing a stream to its method, `grpc-timeout`
 * deadlines, request decompression, the HTTP/2 limits and connection
 * policy. Methods are registered with their serve functions, one per call
 * kind; each call object is fw's call port for that kind (calls.ts,
 * stream-call.ts), handed to the serve function as it is.
 */
import http2, { type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { Duplex } from 'node:stream';
import { parseGrpcTimeout } from '../../core/grpc-timeout';
import { GrpcStatus } from '../../core/status';
import { ServiceErrors } from '../../rpc/error-catalogue';
import { streamSharing } from '../../workers/port-sharing';
import type { ServiceError } from '../../rpc/service-error';
import { compressionSettingsOf, newStreamCompression } from '../compression';
import { STATUS_FLUSH_MS } from '../engine-contract';
import { drainedStatus } from '../errors';
import { resolveHttp2Limits } from '../h2-limits';
import { PendingRequests } from '../pending-requests';
import { framedEncoderOf } from '../proto-codec/framed-encoders';
import type { ServeStream, StreamPortMethod, UnaryPortMethod } from '../grpc-call-port';
import { DEFAULT_MAX_MESSAGE_LENGTH, type GrpcServerOptions, type GrpcTlsOptions } from '../options';
import { callStreamClosed, expireDeadline, H2UnaryCall } from './calls';
import { H2StreamCall } from './stream-call';
import { CALL, refuseStream, sendStatus, type CallKind, type CallStream, type MessageLimits, type ServedMethod } from './responder';
import { SessionTracker, streamClosed, streamOpened, type SessionPolicy } from './sessions';
import { isGrpcContentType, unsupportedEncoding } from './wire';

/** Takes a stream that is not gRPC (true), or declines it (false → 415). */
export type ForeignStreamHandler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]) => boolean;

function ignore(): void {
  // Stream errors end that stream; its call learns of it through 'close'.
}

const STREAM_KINDS: Readonly<Record<ServeStream['kind'], CallKind>> = { server: 'serverStream', client: 'clientStream', bidirectional: 'bidi' };

function onCallStreamClose(this: CallStream): void {
  const call = this[CALL] as { session?: ServerHttp2Session } | undefined;
  streamClosed(call?.session, this.rstCode);
  callStreamClosed(this);
}

/** A stream no call is made for still counts as open on its connection until it closes. */
function trackWithoutCall(stream: ServerHttp2Stream, session: ServerHttp2Session | undefined): void {
  if (session !== undefined) stream.once('close', () => streamClosed(session, stream.rstCode));
}

function sessionPolicy(options: GrpcServerOptions): SessionPolicy {
  return {
    maxConnectionIdle: resolveHttp2Limits(options).maxConnectionIdle,
    maxConnectionAge: options.maxConnectionAge,
    maxConnectionAgeGrace: options.maxConnectionAgeGrace,
    keepaliveTimeMs: options.keepaliveTimeMs,
    keepaliveTimeoutMs: options.keepaliveTimeoutMs ?? 20_000,
    minPingIntervalMs: options.http2MinTimeBetweenPingsMs,
    maxPingStrikes: options.http2MaxPingStrikes ?? 2,
    maxResetsPerSecond: resolveHttp2Limits(options).maxResetsPerSecond,
  };
}

/** A gRPC server on node:http2, listening itself or fed connections (the gateway's one port). */
export class H2GrpcServer {
  /** Streaming calls still open: a forced shutdown ends each with UNAVAILABLE (unary calls are cut with their connection). */
  readonly #openStreams = new Set<H2StreamCall>();
  /** A forced shutdown is letting statuses leave: a second one (after the handlers settled) does not cut them off. */
  #flushing = false;
  readonly #methods = new Map<string, ServedMethod>();
  readonly #options: GrpcServerOptions;
  readonly #limits: MessageLimits;
  readonly #sessions: SessionTracker;
  readonly #sweep: PendingRequests | undefined;
  #h2: http2.Http2Server | http2.Http2SecureServer | undefined = undefined;
  /** Streams that are not gRPC (Connect, gRPC-Web on the gateway's port); read per stream. */
  foreignStreams: ForeignStreamHandler | undefined = undefined;

  constructor(options: GrpcServerOptions & { maxMessageSize?: number }) {
    this.#options = options;
    const limits = resolveHttp2Limits(options);
    this.#limits = {
      maxReceive: options.maxReceiveMessageLength ?? options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_LENGTH,
      maxSend: options.maxSendMessageLength ?? options.maxMessageSize ?? DEFAULT_MAX_MESSAGE_LENGTH,
      pendingRequests: limits.requestTimeout === 0 ? undefined : new PendingRequests(limits.requestTimeout),
    };
    this.#sweep = this.#limits.pendingRequests;
    this.#sessions = new SessionTracker(sessionPolicy(options));
  }

  /** Registers streaming methods: each call object is the port its `serve` takes. */
  addStreams(methods: readonly StreamPortMethod[]): void {
    for (const method of methods) {
      this.#register({
        path: method.path,
        kind: STREAM_KINDS[method.kind],
        deserialize: method.requestDeserialize,
        serialize: method.responseSerialize,
        serializeFramed: framedEncoderOf(method.responseSerialize),
        compression: compressionSettingsOf(method.responseSerialize),
        serve: undefined,
        streaming: method,
      });
    }
  }

  /** Registers unary methods served through fw's call port: each call object is handed to `serve` as it is. */
  addUnary(methods: readonly UnaryPortMethod[]): void {
    for (const method of methods) {
      this.#register({
        path: method.path,
        kind: 'unary',
        deserialize: method.requestDeserialize,
        serialize: method.responseSerialize,
        serializeFramed: framedEncoderOf(method.responseSerialize),
        compression: compressionSettingsOf(method.responseSerialize),
        serve: method.serve,
        streaming: undefined,
      });
    }
  }

  #register(served: ServedMethod): void {
    if (this.#methods.has(served.path)) throw new Error(`Method handler for ${served.path} already provided.`);
    this.#methods.set(served.path, served);
  }

  /** Binds `host:port` (0 = any free port); resolves the bound port. */
  listen(host: string, port: number, tls: GrpcTlsOptions | undefined): Promise<number> {
    const h2 = this.#server(tls);
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      h2.once('error', onError);
      // A worker of `workers` on Linux binds the port itself beside the others (reusePort); elsewhere node:cluster shares it.
      h2.listen({ port, host, ...streamSharing() }, () => {
        h2.off('error', onError);
        const address = h2.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });
  }

  /** Serves an h2c connection accepted elsewhere (the gateway's multiplexed port). */
  injectConnection(socket: Duplex): void {
    this.#server(undefined).emit('connection', socket);
  }

  /** GOAWAY on every connection; resolves once running calls are done and connections closed. */
  async shutdown(): Promise<void> {
    const h2 = this.#h2;
    if (h2?.listening === true) h2.close();
    await this.#sessions.closeAll();
  }

  /**
   * Ends every connection now; running calls are cancelled. An open stream
   * first gets UNAVAILABLE (never a bare cut; one the gateway already ended
   * keeps its status), and connections carrying one are cut once it has left
   * (at most STATUS_FLUSH_MS later).
   */
  forceShutdown(): void {
    const h2 = this.#h2;
    if (h2?.listening === true) h2.close();
    if (this.#openStreams.size > 0) {
      const drained = drainedStatus();
      for (const call of [...this.#openStreams]) {
        sendStatus(call, drained.code, drained.details, drained.metadata);
        call.cancel();
      }
      this.#openStreams.clear();
      this.#flushing = true;
      this.#sessions.destroyAll(STATUS_FLUSH_MS);
    } else if (!this.#flushing) this.#sessions.destroyAll(0);
    this.#sweep?.stop();
  }

  #server(tls: GrpcTlsOptions | undefined): http2.Http2Server | http2.Http2SecureServer {
    if (this.#h2 !== undefined) return this.#h2;
    const limits = resolveHttp2Limits(this.#options);
    const common = { settings: { maxConcurrentStreams: limits.maxConcurrentStreams }, maxSessionMemory: limits.maxSessionMemory };
    const h2 =
      tls === undefined
        ? http2.createServer(common)
        : http2.createSecureServer({
            ...common,
            cert: tls.cert,
            key: tls.key,
            ...(tls.ca === undefined ? {} : { ca: tls.ca }),
            requestCert: tls.requireClientCert === true,
            rejectUnauthorized: tls.requireClientCert === true,
            ALPNProtocols: ['h2'],
          });
    h2.on('session', (session: ServerHttp2Session) => this.#sessions.add(session));
    h2.on('sessionError', ignore);
    h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]) => this.#onStream(stream, headers, flags, rawHeaders));
    this.#h2 = h2;
    return h2;
  }

  /** The catalogue's error for a path no method serves: the service is unknown, or only the method. */
  #unknown(path: string): ServiceError {
    const slash = path.indexOf('/', 1);
    const service = slash === -1 ? path.slice(1) : path.slice(1, slash);
    const method = slash === -1 ? '' : path.slice(slash + 1);
    for (const served of this.#methods.keys()) if (served.startsWith(`/${service}/`)) return ServiceErrors.methodNotFound(service, method);
    return ServiceErrors.serviceNotFound(service);
  }

  #onStream(stream: CallStream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]): void {
    stream.on('error', ignore);
    const session = stream.session as ServerHttp2Session | undefined;
    if (session !== undefined) streamOpened(session);
    if (!isGrpcContentType(headers['content-type'])) {
      trackWithoutCall(stream, session);
      this.#foreign(stream, headers, rawHeaders);
      return;
    }
    const path = headers[':path'] ?? '';
    const served = this.#methods.get(path);
    if (served === undefined) {
      trackWithoutCall(stream, session);
      const unknown = this.#unknown(path);
      refuseStream(stream, GrpcStatus.UNIMPLEMENTED, unknown.message, unknown.code);
      return;
    }
    const encoding = headers['grpc-encoding'] as string | undefined;
    if (encoding !== undefined && encoding !== 'identity' && encoding !== 'gzip') {
      const refusal = unsupportedEncoding(encoding);
      trackWithoutCall(stream, session);
      refuseStream(stream, refusal.code, refusal.details);
      return;
    }
    let deadline = Infinity;
    const timeout = headers['grpc-timeout'] as string | undefined;
    if (timeout !== undefined) {
      const ms = parseGrpcTimeout(timeout);
      if (ms === undefined) {
        trackWithoutCall(stream, session);
        refuseStream(stream, GrpcStatus.INTERNAL, `Invalid grpc-timeout value "${timeout}"`);
        return;
      }
      deadline = Date.now() + ms;
    }
    const accept = headers['grpc-accept-encoding'];
    const compression = typeof accept === 'string' && accept.includes('gzip') ? newStreamCompression(accept) : undefined;
    // The call carries the session (one property added to Node's stream object, not two).
    const call =
      served.kind === 'unary'
        ? new H2UnaryCall(stream, served, this.#limits, headers, deadline, compression, session)
        : new H2StreamCall(stream, served, this.#limits, headers, deadline, compression, session);
    stream.on('close', onCallStreamClose);
    if (call instanceof H2StreamCall) {
      this.#openStreams.add(call);
      stream.once('close', () => this.#openStreams.delete(call));
    }
    if (deadline !== Infinity) call.deadlineTimer = setTimeout(expireDeadline, Math.max(0, deadline - Date.now()), call);
    // Client and bidi streams belong to their running handler; the others cannot start before END_STREAM (the call releases them then).
    if (this.#sweep !== undefined && (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) === 0 && (served.kind === 'unary' || served.kind === 'serverStream')) this.#sweep.watch(call);
  }

  #foreign(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]): void {
    const handler = this.foreignStreams;
    try {
      if (handler !== undefined && handler(stream, headers, rawHeaders)) return;
    } catch {
      // A handler bug must not escape into the HTTP/2 session.
      stream.destroy();
      return;
    }
    if (!stream.destroyed) {
      stream.respond({ ':status': 415, 'grpc-status': String(GrpcStatus.INTERNAL), 'grpc-message': `Unsupported content-type ${String(headers['content-type'])}` }, { endStream: true });
    }
  }
}
