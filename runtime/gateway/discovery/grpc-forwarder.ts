/**
 * Forwards one gateway call to an instance over gRPC (@grpc/grpc-js), in all
 * four streaming modes, picking the instance per call from the service's
 * pool among those whose circuit breaker and bulkhead admit it. Unary calls
 * have a deadline (forwarding-policy.ts), streams the caller's only; unary: unary-forwarding.ts
 * (retries, hedging). A server stream that fails UNAVAILABLE before any
 * response header arrived is tried on another instance, each instance at
 * most once; client and bidi streams are not retried: their request stream
 * has already been consumed and cannot be replayed. A unary call whose whole
 * reply arrived before its connection dropped (status lost with it) returns
 * that reply: it is neither failed nor run again.
 */
import { credentials as grpcCredentials, Client, Metadata, status as GrpcCode, type CallOptions, type ServiceError } from '@grpc/grpc-js';
import { once } from 'node:events';
import type { RequestContext } from '../../core/request-context';
import { onAbort } from './abort-fanout';
import type { StreamingMode } from '../../grpc/descriptor';
import type { RemoteMethod } from '../extension-points';
import type { BalancingStrategy, ForwardingOptions } from './discovery-config';
import type { DiscoveryDecision } from './forwarding-events';
import type { ForwardingPolicy } from './forwarding-policy';
import type { InstancePool } from './instance-pool';
import type { ServiceInstance } from './service-instance';
import { callError, H2UnaryChannel } from './h2-unary-channel';
import { beginAttempt, callerDeadline, forwardUnary, recordOutcome, type AttemptStarter, type UnaryForwarding } from './unary-forwarding';

/** How messages of one method travel: protobuf binary from a descriptor, or JSON. */
export interface WireCodec {
  serialize(value: unknown): Buffer;
  deserialize(bytes: Buffer): unknown;
}

/** Per call: the strategy to use and the session/connection key to pin to, if any. */
export interface CallRouter {
  strategy(context: RequestContext): BalancingStrategy;
  affinityKey(context: RequestContext): string | undefined;
}

/** A failure of forwarding itself (no instance to call), with a gRPC status code. */
export class ForwardingError extends Error {
  override name = 'ForwardingError';
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

export interface ForwarderSettings {
  service: string;
  /**
   * gRPC paths to try, best guess first. Without a descriptor the method's
   * real name is unknown (`GetUser` by gRPC convention, `getUser` as the
   * gateway and fw's inline services name it): a call answered UNIMPLEMENTED
   * moves to the next path, which then sticks for later calls.
   */
  paths: readonly string[];
  streaming: StreamingMode;
  requestCodec: WireCodec;
  responseCodec: WireCodec;
  pool: InstancePool;
  router: CallRouter;
  forwarding: ForwardingOptions;
  policy: ForwardingPolicy;
  /** From the method's `idempotency_level` (or `idempotentMethods`): may be sent again. */
  idempotent: boolean;
  observe(decision: DiscoveryDecision, instance: ServiceInstance | undefined, reason: string): void;
}

/**
 * Channel defaults: grpc-js's own retry layer is off (this forwarder retries
 * across instances itself, and the layer buffers every message of every
 * call), and so is service-config lookup in DNS TXT records.
 */
const CHANNEL_DEFAULTS = { 'grpc.enable_retries': 0, 'grpc.service_config_disable_resolution': 1 };

/** The gRPC channel to `instance`, opened on first use. */
export function channelOf(instance: ServiceInstance, forwarding: ForwardingOptions): Client {
  if (instance.client === undefined) {
    const options = { ...CHANNEL_DEFAULTS, ...forwarding.channelOptions };
    instance.client = new Client(instance.target, forwarding.credentials ?? grpcCredentials.createInsecure(), options);
  }
  return instance.client;
}

/**
 * True when unary calls may use the lean HTTP/2 client (h2-unary-channel.ts):
 * a plain h2c channel with grpc-js defaults. Custom credentials (TLS) or
 * channel options keep every call on grpc-js, which honours them.
 */
export function usesLeanUnary(forwarding: ForwardingOptions): boolean {
  return forwarding.credentials === undefined && forwarding.channelOptions === undefined;
}

/** The lean unary channel to `instance`, opened on first use. */
export function h2ChannelOf(instance: ServiceInstance): H2UnaryChannel {
  return (instance.h2 ??= new H2UnaryChannel(instance.target));
}

/** Closes whatever channels `instance` has open (it left the pool). */
export function closeChannels(instance: ServiceInstance): void {
  instance.client?.close();
  instance.h2?.close();
}

export function createRemoteMethod(s: ForwarderSettings): RemoteMethod {
  const forwardHeaders = (s.forwarding.forwardHeaders ?? ['authorization']).map((h) => h.toLowerCase());
  let pathIndex = 0;
  /** After UNIMPLEMENTED on `tried`: switches to the next candidate path; true when there is one. */
  const nextPath = (tried: string, error: unknown): boolean => {
    if ((error as ServiceError).code !== GrpcCode.UNIMPLEMENTED) return false;
    const at = s.paths.indexOf(tried);
    if (at === -1 || at + 1 >= s.paths.length) return false;
    if (pathIndex === at) pathIndex = at + 1;
    return true;
  };
  const serialize = (v: unknown): Buffer => s.requestCodec.serialize(v);
  const deserialize = (b: Buffer): unknown => s.responseCodec.deserialize(b);

  function metadataFor(context: RequestContext): Metadata {
    const md = new Metadata();
    if (context.tracing.traceId !== '') md.set('x-trace-id', context.tracing.traceId);
    for (const h of forwardHeaders) {
      const v = context.headers[h];
      if (v !== undefined) md.set(h, v);
    }
    return md;
  }

  /**
   * Streams run as long as both ends keep them (a chat may last hours): only
   * the caller's own deadline bounds them; a frozen instance is found by the
   * liveness watchdog instead.
   */
  function options(context: RequestContext): CallOptions {
    const deadline = callerDeadline(context);
    return deadline === undefined ? {} : { deadline };
  }

  const maxInFlight = s.policy.maxInFlight;
  function pick(context: RequestContext, tried: ServiceInstance[] | undefined, lastError: unknown): ServiceInstance {
    if (context.signal.aborted) throw new ForwardingError(GrpcCode.CANCELLED, 'the call was cancelled before it was forwarded');
    const instance = s.pool.pick(s.router.strategy(context), s.router.affinityKey(context), tried, maxInFlight);
    if (instance !== undefined) return instance;
    if (lastError !== undefined) throw lastError;
    const why = s.pool.refusal(tried);
    if (why === 'bulkhead') {
      s.observe('bulkhead_full', undefined, `every instance has ${maxInFlight} calls in flight`);
      throw new ForwardingError(GrpcCode.RESOURCE_EXHAUSTED, `every instance of service "${s.service}" already has ${maxInFlight} calls in flight; retry shortly`);
    }
    const message = why === 'circuit' ? `every instance of service "${s.service}" is failing (circuit open); retry shortly` : `no instance of service "${s.service}" is available`;
    s.observe('no_instance', undefined, message);
    throw new ForwardingError(GrpcCode.UNAVAILABLE, message);
  }

  const lean = usesLeanUnary(s.forwarding);

  /** Request headers of a lean unary call: the same metadata as metadataFor, as plain header values. */
  function headersFor(context: RequestContext): Record<string, string> {
    const headers: Record<string, string> = {};
    if (context.tracing.traceId !== '') headers['x-trace-id'] = context.tracing.traceId;
    for (const h of forwardHeaders) {
      const v = context.headers[h];
      if (v !== undefined) headers[h] = v;
    }
    return headers;
  }

  /** One unary attempt on the lean client (request bytes serialized once per call, by the caller). */
  const leanAttempt = (bytes: Buffer, headers: Record<string, string>): AttemptStarter => (instance, path, deadline, done) => {
    const call = h2ChannelOf(instance).unary(path, bytes, headers, deadline, (error, message, answered) => {
      if (error !== null) {
        done(error, undefined, answered);
        return;
      }
      let response: unknown;
      try {
        response = s.responseCodec.deserialize(message as Buffer);
      } catch (e) {
        done(callError(GrpcCode.INTERNAL, `Response message parsing error: ${(e as Error).message}`), undefined, true);
        return;
      }
      done(null, response, true);
    });
    return () => call.cancel();
  };

  /**
   * One unary attempt over grpc-js. The call decodes its reply through its own
   * deserializer, which keeps the message: when the connection then drops
   * before the status (UNAVAILABLE after a whole reply), that reply is the
   * call's result, as on the lean client.
   */
  const grpcAttempt = (request: unknown, metadata: Metadata): AttemptStarter => (instance, path, deadline, done) => {
    let answered = false;
    let reply: { message: unknown } | undefined;
    const keepReply = (bytes: Buffer): unknown => {
      const message = deserialize(bytes);
      reply = { message };
      return message;
    };
    const call = channelOf(instance, s.forwarding).makeUnaryRequest(path, serialize, keepReply, request, metadata, { deadline }, (error, response) => {
      if (error === null) done(null, response, true);
      else if (answered && reply !== undefined && error.code === GrpcCode.UNAVAILABLE) done(null, reply.message, true);
      else done(error, undefined, answered);
    });
    call.on('metadata', () => (answered = true));
    return () => call.cancel();
  };

  function forwarding(start: AttemptStarter): UnaryForwarding {
    return {
      service: s.service, idempotent: s.idempotent, policy: s.policy, pick,
      path: () => s.paths[pathIndex] as string, nextPath, start, observe: s.observe,
    };
  }

  function unary(request: unknown, context: RequestContext): Promise<unknown> {
    if (!lean) return forwardUnary(forwarding(grpcAttempt(request, metadataFor(context))), request, context);
    let bytes: Buffer;
    try {
      bytes = s.requestCodec.serialize(request);
    } catch (error) {
      return Promise.reject(callError(GrpcCode.INTERNAL, `Request message serialization failure: ${(error as Error).message}`));
    }
    return forwardUnary(forwarding(leanAttempt(bytes, headersFor(context))), request, context);
  }

  async function* serverStream(request: unknown, context: RequestContext): AsyncGenerator<unknown> {
    let tried: ServiceInstance[] | undefined;
    let lastError: unknown;
    for (;;) {
      const instance = pick(context, tried, lastError);
      beginAttempt(instance);
      const path = s.paths[pathIndex] as string;
      const call = channelOf(instance, s.forwarding).makeServerStreamRequest(path, serialize, deserialize, request, metadataFor(context), options(context));
      let answered = false;
      call.on('metadata', () => (answered = true));
      const unwatch = onAbort(context.signal, () => call.cancel());
      let ended = false;
      try {
        for await (const message of call) {
          answered = true;
          instance.lastProgressAt = Date.now();
          yield message;
        }
        ended = true;
        recordOutcome(instance, null);
        return;
      } catch (error) {
        ended = true;
        recordOutcome(instance, (error as ServiceError).code, answered, false);
        if (!answered && nextPath(path, error)) continue;
        if (answered || context.signal.aborted || (error as ServiceError).code !== GrpcCode.UNAVAILABLE) throw error;
        s.observe('retry', instance, `${instance.key}: ${(error as Error).message}`);
        (tried ??= []).push(instance);
        lastError = error;
      } finally {
        instance.inFlight--;
        unwatch();
        if (!ended) call.cancel();
      }
    }
  }

  /** Writes `requests` into `call` with backpressure; stops when the call finished. */
  async function pump(requests: AsyncIterable<unknown>, call: NodeJS.WritableStream & { cancel(): void }, done: () => boolean): Promise<void> {
    try {
      for await (const r of requests) {
        if (done()) return;
        if (!call.write(r as never)) await once(call, 'drain');
      }
      if (!done()) call.end();
    } catch {
      // The caller's request stream failed: the forwarded call cannot complete.
      if (!done()) call.cancel();
    }
  }

  function clientStream(requests: unknown, context: RequestContext): Promise<unknown> {
    const instance = pick(context, undefined, undefined);
    beginAttempt(instance);
    let finished = false;
    return new Promise<unknown>((resolve, reject) => {
      let unwatch: (() => void) | undefined;
      const path = s.paths[pathIndex] as string;
      const call = channelOf(instance, s.forwarding).makeClientStreamRequest(path, serialize, deserialize, metadataFor(context), options(context), (error, response) => {
        finished = true;
        instance.inFlight--;
        recordOutcome(instance, error === null ? null : error.code, true, false);
        unwatch?.();
        // The request stream is spent: this call fails, the next one uses the other path.
        if (error !== null) nextPath(path, error);
        if (error !== null) reject(error);
        else resolve(response);
      });
      unwatch = onAbort(context.signal, () => call.cancel());
      void pump(requests as AsyncIterable<unknown>, call, () => finished);
    });
  }

  async function* bidiStream(requests: unknown, context: RequestContext): AsyncGenerator<unknown> {
    const instance = pick(context, undefined, undefined);
    beginAttempt(instance);
    const path = s.paths[pathIndex] as string;
    const call = channelOf(instance, s.forwarding).makeBidiStreamRequest(path, serialize, deserialize, metadataFor(context), options(context));
    let finished = false;
    const unwatch = onAbort(context.signal, () => call.cancel());
    void pump(requests as AsyncIterable<unknown>, call, () => finished);
    try {
      for await (const message of call) {
        instance.lastProgressAt = Date.now();
        yield message;
      }
      recordOutcome(instance, null);
    } catch (error) {
      recordOutcome(instance, (error as ServiceError).code, true, false);
      nextPath(path, error);
      throw error;
    } finally {
      if (!finished) call.cancel();
      finished = true;
      instance.inFlight--;
      unwatch();
    }
  }

  switch (s.streaming) {
    case 'none': return { streaming: 'none', handler: unary };
    case 'server': return { streaming: 'server', handler: serverStream };
    case 'client': return { streaming: 'client', handler: clientStream };
    case 'bidirectional': return { streaming: 'bidirectional', handler: bidiStream };
  }
}
