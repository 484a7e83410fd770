/**
 * The one call path every transport and `server.grpc()` run. Around the
 * handler, in order: global interceptors (monitoring, user interceptors) →
 * rate limit → authentication and authorization → input validation →
 * service middleware → handler → its result's shape (a stream is an async
 * iterable) and output validation. A method not hosted here is asked of the
 * remote resolver (discovery) before failing with
 * METHOD_NOT_FOUND/SERVICE_NOT_FOUND. The core also counts calls in flight
 * and the open streams, for drain.
 */
import { compose } from '../core/compose';
import type { RequestContext } from '../core/request-context';
import { validateEach } from '../validation/stream-items';
import { authenticationRequired, type CallAuthenticator, type CredentialSource } from './access-policy';
import type { CallInterceptor, RpcCall, RpcHandler } from './call-types';
import type { CallDeadline } from './deadline';
import type { StreamingMode } from './descriptor';
import { ServiceErrors } from './error-catalogue';
import { isMessageBlind } from './message-blind';
import type { ServiceRegistry } from './registry';
import type { RemoteServiceResolver } from './remote-resolver';
import { remoteMethod, type ResolvedMethod } from './resolved-method';
import type { ServiceError } from './service-error';
import { TransportCall, type CoreCall } from './transport-call';

export type { CoreCall } from './transport-call';

function streamsOut(streaming: StreamingMode): boolean {
  return streaming === 'server' || streaming === 'bidirectional';
}

function streamsIn(streaming: StreamingMode): boolean {
  return streaming === 'client' || streaming === 'bidirectional';
}

/**
 * A streaming handler's result, checked once for every transport: anything
 * but an async iterable is the handler's fault (INTERNAL_ERROR), raised inside
 * the interceptors so monitoring counts it.
 */
function streamResult(result: unknown): unknown {
  if (result === null || typeof result !== 'object' || typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') throw ServiceErrors.notIterable();
  return result;
}

/**
 * `running`, except that an answer settling once the deadline has passed is
 * DEADLINE_EXCEEDED: that is what the caller got, from the transport, which
 * enforces the deadline on its wire and aborts the handler's signal. Timers
 * run on a millisecond clock, hence the 1 ms.
 */
function withinDeadline(running: Promise<unknown>, deadline: CallDeadline): Promise<unknown> {
  return running.then((value) => (Date.now() >= deadline.at - 1 ? Promise.reject(ServiceErrors.deadlineExceeded(deadline.ms)) : value));
}

/** `stream`, except that one ending once the deadline has passed ends with DEADLINE_EXCEEDED (as withinDeadline). */
async function* streamWithinDeadline(stream: AsyncIterable<unknown>, deadline: CallDeadline): AsyncGenerator<unknown> {
  yield* stream;
  if (Date.now() >= deadline.at - 1) throw ServiceErrors.deadlineExceeded(deadline.ms);
}

/** Runs calls for every transport; holds the interceptor chain, the authenticator and the discovery resolver. */
export class CallCore {
  readonly #registry: ServiceRegistry;
  #chain: ((call: RpcCall) => Promise<unknown>) | undefined = undefined;
  /** Some interceptor may read `call.request`: no call passes bytes through (pass-through.ts). */
  #readsMessages = false;
  authenticator: CallAuthenticator | undefined = undefined;
  resolver: RemoteServiceResolver | undefined = undefined;
  /** Set by `close()`: new calls are refused with UNAVAILABLE while the running ones finish. */
  #draining = false;
  /** How to end each open stream (trackStream). */
  readonly #streams = new Set<(error: ServiceError) => void>();
  /** Handler promises not yet settled. */
  #inflight = 0;
  #settledWaiters: (() => void)[] = [];
  readonly #settle = (): void => {
    this.#inflight--;
    // Most calls end with nobody waiting: no array is copied then.
    if (this.#inflight === 0 && this.#settledWaiters.length > 0) for (const w of this.#settledWaiters.splice(0)) w();
  };

  constructor(registry: ServiceRegistry) {
    this.#registry = registry;
  }

  /** True while the server drains for `close()`. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Starts (true) or ends (false) refusing new calls. */
  setDraining(draining: boolean): void {
    this.#draining = draining;
  }

  /**
   * Registers how to end one open stream with a terminal error in its
   * protocol's form (an NDJSON/SSE error line, a gRPC status, an error
   * envelope or frame); returns the function that unregisters it when the
   * stream ends on its own. `endStreams` calls every registered one.
   */
  trackStream(terminate: (error: ServiceError) => void): () => void {
    this.#streams.add(terminate);
    return () => this.#streams.delete(terminate);
  }

  /** Ends every open stream with `error` (drain past its timeout: UNAVAILABLE), before connections are cut. */
  endStreams(error: ServiceError): void {
    for (const terminate of [...this.#streams]) {
      this.#streams.delete(terminate);
      terminate(error);
    }
  }

  /** Resolves once every call dispatched so far has settled (its handler's promise). */
  settled(): Promise<void> {
    if (this.#inflight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settledWaiters.push(resolve));
  }

  /**
   * Counts a call the adapter runs itself (`run`) in flight, from its
   * handler's start until `leave()` once its reply is sent, in the same count
   * `settled()` waits on.
   */
  enter(): void {
    this.#inflight++;
  }

  /** The call counted by `enter()` is over. */
  leave(): void {
    this.#settle();
  }

  /** Replaces the interceptors that wrap every call, outermost first. */
  setInterceptors(interceptors: readonly CallInterceptor[]): void {
    for (const i of interceptors) if (typeof i !== 'function') throw new TypeError('interceptor must be a function (call, next) => result');
    this.#chain = interceptors.length === 0 ? undefined : compose([...interceptors], (call) => this.#run(call as CoreCall));
    this.#readsMessages = interceptors.some((i) => !isMessageBlind(i));
  }

  /**
   * The byte-forwarding twin of `resolved` (pass-through.ts) unless an
   * installed interceptor may read `call.request`; else undefined.
   */
  passThrough(resolved: ResolvedMethod | undefined): ResolvedMethod | undefined {
    return this.#readsMessages ? undefined : resolved?.passThrough;
  }

  /** Local method, else a discovered remote one, else undefined. */
  resolve(service: string, method: string): ResolvedMethod | undefined {
    const local = this.#registry.resolve(service, method);
    if (local !== undefined || this.resolver === undefined) return local;
    const remote = this.resolver.resolve(service, method);
    if (remote === undefined) return undefined;
    return remoteMethod(service, method, remote.streaming, remote.handler as RpcHandler);
  }

  /**
   * Runs one call. `request` is the handler-native request (an AsyncIterable
   * for client/bidi streaming); the result is a value or an AsyncIterable.
   */
  call(resolved: ResolvedMethod | undefined, service: string, method: string, request: unknown, context: RequestContext, credentials: CredentialSource, deadline?: CallDeadline): Promise<unknown> {
    if (this.#draining) return Promise.reject(ServiceErrors.shuttingDown());
    const running = this.#start(resolved, service, method, request, context, credentials, deadline);
    this.#inflight++;
    running.then(this.#settle, this.#settle);
    return running;
  }

  /**
   * A call whose request did not decode (malformed JSON types, bytes the
   * codec refuses): it passes the interceptors like any call and fails with
   * `error` where the handler would run, so metrics, logs and spans count it
   * with its real status. The handler never runs; the promise always rejects.
   */
  refuse(resolved: ResolvedMethod | undefined, service: string, method: string, error: unknown, context: RequestContext, credentials: CredentialSource): Promise<never> {
    if (this.#chain === undefined) return Promise.reject(error);
    const call = new TransportCall(resolved?.service ?? service, resolved?.method ?? method, resolved?.streaming ?? 'none', undefined, context, resolved, credentials, error, undefined);
    // An interceptor may replace the error, never turn the call into a success: there is no request to answer.
    return this.#chain(call).then(() => Promise.reject(error));
  }

  #start(resolved: ResolvedMethod | undefined, service: string, method: string, request: unknown, context: RequestContext, credentials: CredentialSource, deadline: CallDeadline | undefined): Promise<unknown> {
    if (this.#chain === undefined && resolved !== undefined && resolved.direct) {
      // Nothing but input validation wraps this method: skip building the call object and the async pipeline.
      try {
        const validate = resolved.validateInput;
        let input = request;
        if (validate !== undefined) {
          if (resolved.streaming === 'client' || resolved.streaming === 'bidirectional') input = validateEach(request as AsyncIterable<unknown>, validate, resolved.invalidItems);
          else validate(request);
        }
        const result = Promise.resolve((resolved.handler as (r: unknown, c: RequestContext) => unknown)(input, context));
        return streamsOut(resolved.streaming) ? result.then(streamResult) : result;
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const call = new TransportCall(resolved?.service ?? service, resolved?.method ?? method, resolved?.streaming ?? 'none', request, context, resolved, credentials, undefined, deadline);
    if (this.#chain === undefined) return this.#run(call);
    return this.#chain(call);
  }

  /**
   * Runs a call whose object the adapter built itself (`server.grpc()`'s
   * GrpcCall): the interceptors see that object, the handler gets its
   * request and context. With no interceptor and a direct method, the
   * handler is called straight away. Counted in flight by the adapter
   * (`enter`/`leave`), which knows when the reply is sent.
   */
  run(call: CoreCall): Promise<unknown> {
    if (this.#chain !== undefined) return this.#chain(call);
    const resolved = call.resolved;
    // Unary and server-streaming input validation is one synchronous check: it needs no async pipeline either.
    if (resolved !== undefined && resolved.direct && (resolved.validateInput === undefined || !streamsIn(resolved.streaming))) {
      try {
        if (resolved.validateInput !== undefined) resolved.validateInput(call.request);
        const invoked = resolved.invokeCall === undefined ? (resolved.handler as (r: unknown, c: RequestContext) => unknown)(call.request, call.context) : resolved.invokeCall(call);
        const result = Promise.resolve(invoked);
        return streamsOut(resolved.streaming) ? result.then(streamResult) : result;
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.#run(call);
  }

  async #run(call: CoreCall): Promise<unknown> {
    if (call.refusal !== undefined) throw call.refusal;
    const m = call.resolved;
    if (m === undefined) {
      if (!this.#registry.hosts(call.service) && this.resolver?.resolve(call.service, call.method) === undefined) {
        throw ServiceErrors.serviceNotFound(call.service);
      }
      throw ServiceErrors.methodNotFound(call.service, call.method);
    }
    const policy = m.policy;
    const address = call.context.client.address;
    if (policy?.limiter !== undefined) {
      const wait = policy.limiter.take(address);
      if (wait > 0) throw ServiceErrors.rateLimited(wait);
    }
    if (m.limiter !== undefined) {
      const wait = m.limiter.take(address);
      if (wait > 0) throw ServiceErrors.rateLimited(wait);
    }
    const auth = policy?.authentication;
    const required = authenticationRequired(auth, m.authentication);
    if (required || (auth !== undefined && m.authentication !== false)) {
      if (this.authenticator === undefined) {
        if (required) throw ServiceErrors.unauthenticated('Authentication required');
      } else {
        const info = await this.authenticator.authenticate(call.context, call.credentials, required, auth?.methods);
        call.context.authentication = info;
        if (auth?.authorize !== undefined && m.authentication !== false) {
          if (info === undefined) throw ServiceErrors.unauthenticated('Authentication required');
          if ((await auth.authorize(info.user, m.method, call.request)) !== true) throw ServiceErrors.forbidden(`Not allowed to call ${m.method}`);
        }
      }
    }
    let request = call.request;
    if (m.validateInput !== undefined) {
      if (m.streaming === 'client' || m.streaming === 'bidirectional') {
        request = validateEach(request as AsyncIterable<unknown>, m.validateInput, m.invalidItems);
      } else {
        m.validateInput(request);
      }
    }
    const invoke = (req: unknown): Promise<unknown> => this.#invoke(m, req, call);
    let running: Promise<unknown>;
    if (policy !== undefined && policy.middleware.length > 0) {
      const inner = compose(policy.middleware, (c: RpcCall) => invoke(c.request));
      // Service middleware sees the request as the handler will (a validated stream).
      call.request = request;
      running = inner(call);
    } else {
      running = invoke(request);
    }
    // A unary answer later than the deadline counts as DEADLINE_EXCEEDED here too, so the interceptors (metrics) see what the caller got.
    if (call.deadline === undefined) return running;
    const deadline = call.deadline;
    return streamsOut(m.streaming) ? running.then((stream) => streamWithinDeadline(stream as AsyncIterable<unknown>, deadline)) : withinDeadline(running, deadline);
  }

  async #invoke(m: ResolvedMethod, request: unknown, call: RpcCall): Promise<unknown> {
    const result = await (m.invokeCall === undefined ? (m.handler as (r: unknown, c: RequestContext) => unknown)(request, call.context) : m.invokeCall(call));
    if (streamsOut(m.streaming)) return streamResult(result);
    if (m.validateOutput !== undefined) m.validateOutput(result);
    return result;
  }
}
