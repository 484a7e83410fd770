/**
 * Forwards one gateway call to an instance over gRPC (@grpc/grpc-js), in all
 * four streaming modes, picking the instance per call from the service's
 * pool. A call that fails UNAVAILABLE before any response header arrived
 * (connection refused, connection lost before the instance answered) is tried
 * on another instance, each instance at most once. A unary call whose whole
 * reply arrived before its connection dropped (status lost with it) returns
 * that reply: it is neither failed nor run again. Only unary and
 * server-streaming calls are retried: a client stream has already been
 * consumed and cannot be replayed.
 */
import { credentials as grpcCredentials, Client, Metadata, status as GrpcCode, type CallOptions, type ServiceError } from '@grpc/grpc-js';
import { once } from 'node:events';
import type { RequestContext } from '../../core/request-context';
import { onAbort } from './abort-fanout';
import type { StreamingMode } from '../../grpc/descriptor';
import type { RemoteMethod } from '../extension-points';
import type { BalancingStrategy, ForwardingOptions } from './discovery-config';
import type { InstancePool } from './instance-pool';
import type { ServiceInstance } from './service-instance';
import { callError, H2UnaryChannel } from './h2-unary-channel';
import { isInvalidMessageError } from '../../validation/violations';

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

/** Marks errors of calls that never got a response header from the instance. */
const unanswered = new WeakSet<object>();

function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as ServiceError).code === GrpcCode.UNAVAILABLE && unanswered.has(error);
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

  function options(): CallOptions {
    return s.forwarding.deadlineMs === undefined ? {} : { deadline: Date.now() + s.forwarding.deadlineMs };
  }

  function pick(context: RequestContext, tried: ServiceInstance[] | undefined, lastError: unknown): ServiceInstance {
    if (context.signal.aborted) throw new ForwardingError(GrpcCode.CANCELLED, 'the call was cancelled before it was forwarded');
    const instance = s.pool.pick(s.router.strategy(context), s.router.affinityKey(context), tried);
    if (instance !== undefined) return instance;
    if (lastError !== undefined) throw lastError;
    throw new ForwardingError(GrpcCode.UNAVAILABLE, `no instance of service "${s.service}" is available`);
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

  /**
   * One forwarded unary call on the lean client: a single promise for the
   * whole call, settled from the channel's callback, which also starts the
   * retry on another instance or path (no async frame or promise per try).
   */
  function leanUnary(request: unknown, context: RequestContext): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let bytes: Buffer;
      try {
        bytes = s.requestCodec.serialize(request);
      } catch (error) {
        // A request the strict JSON reader refused is the caller's fault (VALIDATION_ERROR), anything else ours.
        reject(isInvalidMessageError(error) ? error : callError(GrpcCode.INTERNAL, `Request message serialization failure: ${(error as Error).message}`));
        return;
      }
      const headers = headersFor(context);
      let tried: ServiceInstance[] | undefined;
      let lastError: unknown;
      const attempt = (): void => {
        let instance: ServiceInstance;
        try {
          instance = pick(context, tried, lastError);
        } catch (error) {
          reject(error);
          return;
        }
        instance.inFlight++;
        const path = s.paths[pathIndex] as string;
        let unwatch: (() => void) | undefined;
        let settled = false;
        const deadline = s.forwarding.deadlineMs === undefined ? undefined : Date.now() + s.forwarding.deadlineMs;
        const call = h2ChannelOf(instance).unary(path, bytes, headers, deadline, (error, message, answered) => {
          settled = true;
          instance.inFlight--;
          unwatch?.();
          if (error === null) {
            let response: unknown;
            try {
              response = s.responseCodec.deserialize(message as Buffer);
            } catch (e) {
              reject(callError(GrpcCode.INTERNAL, `Response message parsing error: ${(e as Error).message}`));
              return;
            }
            resolve(response);
            return;
          }
          if (nextPath(path, error)) {
            attempt();
            return;
          }
          if (answered || error.code !== GrpcCode.UNAVAILABLE || context.signal.aborted) {
            reject(error);
            return;
          }
          (tried ??= []).push(instance);
          lastError = error;
          attempt();
        });
        if (!settled) unwatch = onAbort(context.signal, () => call.cancel());
      };
      attempt();
    });
  }

  /**
   * One unary call over grpc-js. The call decodes its reply through its own
   * deserializer, which keeps the message: when the connection then drops
   * before the status (UNAVAILABLE after a whole reply), that reply is the
   * call's result, as on the lean client.
   */
  function unaryOnce(instance: ServiceInstance, path: string, request: unknown, context: RequestContext): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let answered = false;
      let reply: { message: unknown } | undefined;
      const keepReply = (bytes: Buffer): unknown => {
        const message = deserialize(bytes);
        reply = { message };
        return message;
      };
      let unwatch: (() => void) | undefined;
      const call = channelOf(instance, s.forwarding).makeUnaryRequest(path, serialize, keepReply, request, metadataFor(context), options(), (error, response) => {
        unwatch?.();
        if (error === null) resolve(response);
        else if (answered && reply !== undefined && error.code === GrpcCode.UNAVAILABLE) resolve(reply.message);
        else {
          if (!answered) unanswered.add(error);
          reject(error);
        }
      });
      call.on('metadata', () => (answered = true));
      unwatch = onAbort(context.signal, () => call.cancel());
    });
  }

  async function unary(request: unknown, context: RequestContext): Promise<unknown> {
    let tried: ServiceInstance[] | undefined;
    let lastError: unknown;
    for (;;) {
      const instance = pick(context, tried, lastError);
      instance.inFlight++;
      const path = s.paths[pathIndex] as string;
      try {
        return await unaryOnce(instance, path, request, context);
      } catch (error) {
        if (nextPath(path, error)) continue;
        if (!isRetryable(error) || context.signal.aborted) throw error;
        (tried ??= []).push(instance);
        lastError = error;
      } finally {
        instance.inFlight--;
      }
    }
  }

  async function* serverStream(request: unknown, context: RequestContext): AsyncGenerator<unknown> {
    let tried: ServiceInstance[] | undefined;
    let lastError: unknown;
    for (;;) {
      const instance = pick(context, tried, lastError);
      instance.inFlight++;
      const path = s.paths[pathIndex] as string;
      const call = channelOf(instance, s.forwarding).makeServerStreamRequest(path, serialize, deserialize, request, metadataFor(context), options());
      let answered = false;
      call.on('metadata', () => (answered = true));
      const unwatch = onAbort(context.signal, () => call.cancel());
      let ended = false;
      try {
        for await (const message of call) {
          answered = true;
          yield message;
        }
        ended = true;
        return;
      } catch (error) {
        ended = true;
        if (!answered && nextPath(path, error)) continue;
        if (answered || context.signal.aborted || (error as ServiceError).code !== GrpcCode.UNAVAILABLE) throw error;
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
    instance.inFlight++;
    let finished = false;
    return new Promise<unknown>((resolve, reject) => {
      let unwatch: (() => void) | undefined;
      const path = s.paths[pathIndex] as string;
      const call = channelOf(instance, s.forwarding).makeClientStreamRequest(path, serialize, deserialize, metadataFor(context), options(), (error, response) => {
        finished = true;
        instance.inFlight--;
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
    instance.inFlight++;
    const path = s.paths[pathIndex] as string;
    const call = channelOf(instance, s.forwarding).makeBidiStreamRequest(path, serialize, deserialize, metadataFor(context), options());
    let finished = false;
    const unwatch = onAbort(context.signal, () => call.cancel());
    void pump(requests as AsyncIterable<unknown>, call, () => finished);
    try {
      for await (const message of call) yield message;
    } catch (error) {
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
    case 'none': return { streaming: 'none', handler: lean ? leanUnary : unary };
    case 'server': return { streaming: 'server', handler: serverStream };
    case 'client': return { streaming: 'client', handler: clientStream };
    case 'bidirectional': return { streaming: 'bidirectional', handler: bidiStream };
  }
}
