/**
 * `GrpcCall`: what middleware (spec 4.6) and proto-defined handlers receive
 * for one call — method, metadata, assignable `user`, `getPeer()`, the request
 * (or the request stream), and a lazily built `RequestContext`. Fields are
 * declared up front (fixed shape); the context, its AbortSignal and the
 * metadata view are only built when something reads them, so a plain unary
 * call pays for none of it.
 */
import type { RequestContext } from '../core/request-context';
import type { StreamingMode } from '../rpc/descriptor';
import type { ResolvedMethod } from '../rpc/resolved-method';
import type { CoreCall } from '../rpc/transport-call';
import type { CallMetadata } from './call-metadata';
import { GrpcCallMetadata } from './grpc-call-metadata';
import { GrpcRequestContext } from './grpc-request-context';
import type { OutgoingMetadata, ReadableMetadata } from './metadata-map';

export type { CallMetadata } from './call-metadata';


/**
 * Where a call came from and how it can end early. grpc-js's server call
 * objects fit this shape as they are (no wrapper allocated per call); the
 * in-process test client implements it too.
 */
export interface CallSource {
  readonly metadata: ReadableMetadata;
  /** True once the caller cancelled (grpc-js also sets it when a finished call's stream closes). */
  readonly cancelled: boolean;
  getPeer(): string;
  /** Absolute deadline (a Date, or ms since the epoch; Infinity for none). */
  getDeadline(): Date | number;
  /** Registers `listener` for the `cancelled` event. */
  once(event: 'cancelled', listener: () => void): unknown;
  /** Sends the response headers (grpc-js server calls; the test client records them). */
  sendMetadata?(metadata: OutgoingMetadata): void;
}

/** Identity of the method a call targets. */
export interface CallTarget {
  /** Fully-qualified service name: `user.UserService`. */
  readonly service: string;
  /** PascalCase method name: `GetUser`. */
  readonly method: string;
  /** `/user.UserService/GetUser` */
  readonly path: string;
  readonly streaming: StreamingMode;
  /** The method as the call core runs it (set once the service is hosted). */
  readonly resolved?: ResolvedMethod;
}

/**
 * One gRPC call as middleware and `{definition, implementation}` handlers see it.
 *
 * @example
 * app.use(async (call, next) => {
 *   const [token] = call.metadata.get('authorization');
 *   if (call.method !== 'GetPublicInfo' && token === undefined) throw new GrpcError(GrpcStatus.UNAUTHENTICATED, 'Missing token');
 *   return next();
 * });
 */
export class GrpcCall<Req = unknown> implements AsyncIterable<Req>, CoreCall {
  /** PascalCase method name (`GetUser`), as spec 5.2's public-method lists use it. */
  readonly method: string;
  /** Fully-qualified service name (`user.UserService`). */
  readonly service: string;
  /** gRPC path (`/user.UserService/GetUser`). */
  readonly path: string;
  readonly streaming: StreamingMode;
  /** The request, for unary and server-streaming calls. */
  request: Req;
  /** Set by authentication middleware; handlers read it back. */
  user: unknown;
  /** The method as the call core runs it. */
  readonly resolved: ResolvedMethod | undefined;
  /** Nothing refused before the core: the engine answers undecodable requests itself. */
  readonly refusal: undefined = undefined;
  /** The engine enforces the deadline on the wire and through `signal`. */
  readonly deadline: undefined = undefined;
  readonly #source: CallSource;
  readonly #requests: AsyncIterable<Req> | undefined;
  #metadata: CallMetadata | undefined;
  #controls: GrpcCallMetadata | undefined;
  #context: RequestContext | undefined;
  #abort: AbortController | undefined;
  #deadlineTimer: NodeJS.Timeout | undefined;
  #finished: boolean;

  constructor(target: CallTarget, source: CallSource, request: Req, requests: AsyncIterable<Req> | undefined) {
    this.method = target.method;
    this.service = target.service;
    this.path = target.path;
    this.streaming = target.streaming;
    this.request = request;
    this.user = undefined;
    this.resolved = target.resolved;
    this.#source = source;
    this.#requests = requests;
    this.#metadata = undefined;
    this.#controls = undefined;
    this.#context = undefined;
    this.#abort = undefined;
    this.#deadlineTimer = undefined;
    this.#finished = false;
  }

  get metadata(): CallMetadata {
    if (this.#metadata === undefined) this.#metadata = new MetadataView(this.#source.metadata);
    return this.#metadata;
  }

  /** Where credentials are read from: the request metadata. */
  get credentials(): unknown {
    return this.#source.metadata;
  }

  /** Response headers, trailers, compression and request metadata as bytes (what handlers see as `context.call`). */
  get controls(): GrpcCallMetadata {
    if (this.#controls === undefined) this.#controls = new GrpcCallMetadata(this.#source, undefined);
    return this.#controls;
  }

  /** The controls if anything asked for them, without creating them. */
  get controlsInUse(): GrpcCallMetadata | undefined {
    return this.#controls;
  }

  /** Starts the controls with a content type the response headers must carry (JSON-codec services). */
  useContentType(contentType: string): void {
    this.#controls = new GrpcCallMetadata(this.#source, contentType);
  }

  /** The caller's address, `ip:port` (`in-process` for the test client). */
  getPeer(): string {
    return this.#source.getPeer();
  }

  /** True once the server is done with the call (response or status sent). */
  get finished(): boolean {
    return this.#finished;
  }

  /** True once the caller cancelled or the deadline passed. */
  get cancelled(): boolean {
    return this.#source.cancelled || (this.#abort !== undefined && this.#abort.signal.aborted);
  }

  /** Aborted when the caller cancels or the call's deadline passes. */
  get signal(): AbortSignal {
    if (this.#abort === undefined) this.#abort = this.#startAbort();
    return this.#abort.signal;
  }

  /** The incoming messages of a client-streaming or bidirectional call. */
  [Symbol.asyncIterator](): AsyncIterator<Req> {
    if (this.#requests === undefined) throw new TypeError(`${this.method} is not a client-streaming method; read call.request`);
    return this.#requests[Symbol.asyncIterator]();
  }

  /** The request stream (client-streaming and bidirectional calls). */
  get requests(): AsyncIterable<Req> | undefined {
    return this.#requests;
  }

  /** The spec 2.3 RequestContext handed to descriptor-form and inline handlers. */
  get context(): RequestContext {
    if (this.#context === undefined) this.#context = new GrpcRequestContext(this);
    return this.#context;
  }

  /** Releases the deadline timer; called by the server when the call is over. */
  finish(): void {
    this.#finished = true;
    if (this.#deadlineTimer !== undefined) clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = undefined;
    // The peer is only readable while the connection holds the stream: pin it for contexts kept past the call.
    if (this.#context !== undefined) void this.#context.client;
  }

  #startAbort(): AbortController {
    const controller = new AbortController();
    // grpc-js reports 'cancelled' on every stream close, including after a normal finish: ignore those.
    const abortCancelled = (): void => {
      if (!this.#finished) controller.abort(new Error('Call cancelled by the client'));
    };
    if (this.#source.cancelled) abortCancelled();
    else this.#source.once('cancelled', abortCancelled);
    const raw = this.#source.getDeadline();
    const deadline = raw instanceof Date ? raw.getTime() : raw;
    if (Number.isFinite(deadline)) {
      const remaining = Math.max(0, deadline - Date.now());
      this.#deadlineTimer = setTimeout(() => controller.abort(new Error('Deadline exceeded')), remaining);
      this.#deadlineTimer.unref();
    }
    return controller;
  }
}

class MetadataView implements CallMetadata {
  readonly #metadata: ReadableMetadata;
  constructor(metadata: ReadableMetadata) {
    this.#metadata = metadata;
  }
  get(name: string): (string | Buffer)[] {
    return this.#metadata.get(name.toLowerCase()) as (string | Buffer)[];
  }
  getMap(): Record<string, string | Buffer> {
    return this.#metadata.getMap() as Record<string, string | Buffer>;
  }
}
