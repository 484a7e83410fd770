/**
 * The spec 2.3 RequestContext of a gRPC call, built over its call. Every
 * field is computed on first read, so calls whose handlers never look at the
 * context pay only for one small object.
 */
import type { CallMetadataControls } from '../core/call-metadata';
import type { AuthenticationInfo, ClientInfo, RequestContext, TracingInfo } from '../core/request-context';
import type { CallMetadata } from './call-metadata';
import { DEFAULT_CORRELATION_HEADER as CORRELATION_HEADER, tracingFrom } from '../rpc/tracing';
import { splitPeer } from './peer-address';

/** What the context reads from its call (GrpcCall provides it; named here so neither file imports the other). */
export interface ContextSource {
  readonly metadata: CallMetadata;
  readonly service: string;
  readonly method: string;
  readonly user: unknown;
  readonly signal: AbortSignal;
  /** Response headers, trailers, compression (`context.call`). */
  readonly controls: CallMetadataControls;
  getPeer(): string;
}

/** RequestContext over a call: every field computed on first read. */
export class GrpcRequestContext implements RequestContext {
  readonly protocol = 'grpc' as const;
  readonly #call: ContextSource;
  #client: ClientInfo | undefined;
  #headers: Record<string, string> | undefined;
  #metadata: Record<string, unknown> | undefined;
  #tracing: TracingInfo | undefined;
  #authentication: AuthenticationInfo | undefined;

  constructor(call: ContextSource) {
    this.#call = call;
    this.#client = undefined;
    this.#headers = undefined;
    this.#metadata = undefined;
    this.#tracing = undefined;
    this.#authentication = undefined;
  }

  get client(): ClientInfo {
    if (this.#client === undefined) this.#client = clientInfo(this.#call);
    return this.#client;
  }
  get headers(): Record<string, string> {
    if (this.#headers === undefined) {
      const headers: Record<string, string> = {};
      const map = this.#call.metadata.getMap();
      for (const key of Object.keys(map)) {
        const value = map[key];
        headers[key] = typeof value === 'string' ? value : (value as Buffer).toString('base64');
      }
      this.#headers = headers;
    }
    return this.#headers;
  }
  get metadata(): Record<string, unknown> {
    if (this.#metadata === undefined) this.#metadata = { ...this.#call.metadata.getMap(), service: this.#call.service, method: this.#call.method };
    return this.#metadata;
  }
  get tracing(): TracingInfo {
    if (this.#tracing === undefined) {
      // As every transport reads it: the correlation header (its default name; server.grpc() has no option for it) or W3C traceparent.
      const metadata = this.#call.metadata;
      this.#tracing = tracingFrom(metadata.get(CORRELATION_HEADER)[0], metadata.get('traceparent')[0]);
    }
    return this.#tracing;
  }
  /** Filled from `call.user` when middleware authenticated the caller. */
  get authentication(): AuthenticationInfo | undefined {
    if (this.#authentication === undefined && this.#call.user !== undefined && this.#call.user !== null) {
      const user = typeof this.#call.user === 'object' ? (this.#call.user as Record<string, unknown>) : { id: this.#call.user };
      this.#authentication = { provider: 'grpc-middleware', user };
    }
    return this.#authentication;
  }
  set authentication(value: AuthenticationInfo | undefined) {
    this.#authentication = value;
  }
  get signal(): AbortSignal {
    return this.#call.signal;
  }
  get call(): CallMetadataControls {
    return this.#call.controls;
  }
  /** The call this context describes. */
  get source(): ContextSource {
    return this.#call;
  }
}

function clientInfo(call: ContextSource): ClientInfo {
  const peer = call.getPeer();
  const { address, port } = splitPeer(peer);
  const [userAgent] = call.metadata.get('user-agent');
  return {
    id: peer,
    address,
    port,
    userAgent: typeof userAgent === 'string' ? userAgent : undefined,
  };
}
