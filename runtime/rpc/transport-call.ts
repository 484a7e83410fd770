/**
 * The call object the core builds for a transport's call when something
 * wraps it (interceptors, service middleware): the RpcCall surface over the
 * call's RequestContext, metadata and peer read from it on first use.
 */
import type { MetadataValue } from '../core/call-metadata';
import type { RequestContext } from '../core/request-context';
import type { CredentialSource } from './access-policy';
import type { CallMetadata, RpcCall } from './call-types';
import type { CallDeadline } from './deadline';
import type { StreamingMode } from './descriptor';
import type { ResolvedMethod } from './resolved-method';

/** The call object interceptors see; the extra fields stay internal to the core. */
export interface CoreCall extends RpcCall {
  readonly resolved: ResolvedMethod | undefined;
  readonly credentials: CredentialSource;
  /** Set when the transport could not decode the request: the call fails with it inside the interceptors. */
  readonly refusal: unknown;
  /** The call's deadline, when the caller sent one (the transport also enforces it on the wire). */
  readonly deadline: CallDeadline | undefined;
}

function asBuffer(value: MetadataValue): string | Buffer {
  return typeof value === 'string' || Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** `context.call.requestMetadata` in the shape middleware reads (spec 4.6). */
class ContextMetadata implements CallMetadata {
  readonly #context: RequestContext;
  constructor(context: RequestContext) {
    this.#context = context;
  }
  get(name: string): (string | Buffer)[] {
    return this.#context.call.requestMetadata.get(name.toLowerCase()).map(asBuffer);
  }
  getMap(): Record<string, string | Buffer> {
    const record = this.#context.call.requestMetadata.toRecord();
    const out: Record<string, string | Buffer> = {};
    for (const key of Object.keys(record)) {
      const first = record[key]?.[0];
      if (first !== undefined) out[key] = asBuffer(first);
    }
    return out;
  }
}

/** A gateway transport's call as interceptors see it. */
export class TransportCall implements CoreCall {
  request: unknown;
  #metadata: CallMetadata | undefined = undefined;
  #user: unknown = undefined;

  constructor(
    readonly service: string,
    readonly method: string,
    readonly streaming: StreamingMode,
    request: unknown,
    readonly context: RequestContext,
    readonly resolved: ResolvedMethod | undefined,
    readonly credentials: CredentialSource,
    readonly refusal: unknown,
    readonly deadline: CallDeadline | undefined,
  ) {
    this.request = request;
  }

  get metadata(): CallMetadata {
    return (this.#metadata ??= new ContextMetadata(this.context));
  }

  /** What middleware assigned, else the authenticated user. */
  get user(): unknown {
    return this.#user ?? this.context.authentication?.user;
  }

  set user(value: unknown) {
    this.#user = value;
  }

  getPeer(): string {
    const client = this.context.client;
    return `${client.address}:${client.port}`;
  }
}
