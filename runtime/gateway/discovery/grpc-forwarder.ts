/**
 * Forwards one gateway call to an instance over gRPC, in all four streaming
 * modes, picking the instance per call from the service's pool among those
 * whose circuit breaker and bulkhead admit it: on the lean HTTP/2 client
 * (h2-unary-channel.ts) for plain h2c channels, else on @grpc/grpc-js. Unary
 * calls have a deadline (forwarding-policy.ts), streams the caller's only;
 * unary: unary-forwarding.ts (retries, hedging), streams:
 * stream-forwarding.ts. A unary call whose whole reply arrived before its
 * connection dropped (status lost with it) returns that reply: it is neither
 * failed nor run again. Methods whose wire is protobuf also get a
 * pass-through twin that forwards the caller's bytes (../pass-through.ts).
 */
import type { IncomingHttpHeaders } from 'node:http2';
import type { Client, Metadata, ServiceError } from '@grpc/grpc-js';
import { GrpcStatus as GrpcCode } from '../../core/status';
import { grpcJs } from '../../grpc/grpc-js-peer';
import type { RequestContext } from '../../core/request-context';
import { RawMessage } from '../pass-through';
import type { StreamingMode } from '../../rpc/descriptor';
import type { RemoteMethod } from '../extension-points';
import type { BalancingStrategy, ForwardingOptions } from './discovery-config';
import type { DiscoveryDecision } from './forwarding-events';
import type { ForwardingPolicy } from './forwarding-policy';
import type { InstancePool } from './instance-pool';
import type { ServiceInstance } from './service-instance';
import { callError, H2UnaryChannel, type H2RequestMetadata } from './h2-unary-channel';
import { callerCancelled } from './caller-cancel';
import { forwardedMetadata } from './metadata-relay';
import { forwardBidiStream, forwardClientStream, forwardServerStream, grpcJsCall, type StreamForwarding } from './stream-forwarding';
import { callerDeadline, forwardUnary, type AttemptStarter, type UnaryForwarding } from './unary-forwarding';

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
  /** The messages are protobuf binary on the wire: a pass-through twin is built. */
  protobuf: boolean;
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
    // grpc-js (an optional peer) carries TLS, custom channel options, streams and health probes; plain h2c unary calls do not need it.
    const grpc = grpcJs('forwarding to discovered gRPC instances (TLS, channel options, streams, health checks)');
    instance.client = new grpc.Client(instance.target, forwarding.credentials ?? grpc.credentials.createInsecure(), options);
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

/** grpc-js Metadata of a forwarded call's request headers (`-bin` values are base64 text there). */
function toGrpcMetadata(headers: H2RequestMetadata): Metadata {
  const md = new (grpcJs('forwarding to discovered gRPC instances').Metadata)();
  for (const key of Object.keys(headers)) {
    const value = headers[key] as string | string[];
    for (const item of Array.isArray(value) ? value : [value]) md.add(key, key.endsWith('-bin') ? Buffer.from(item, 'base64') : item);
  }
  return md;
}

/** How one handler variant reads and writes messages: decoded values, or RawMessages passed through. */
interface MessageCodec {
  serialize(value: unknown): Buffer;
  deserialize(bytes: Buffer): unknown;
}

const identity = (bytes: Buffer): Buffer => bytes;

export function createRemoteMethod(s: ForwarderSettings): RemoteMethod {
  const forwardHeaders = (s.forwarding.forwardHeaders ?? ['authorization']).map((h) => h.toLowerCase());
  let pathIndex = 0;
  /** After UNIMPLEMENTED on `tried`: switches to the next candidate path; true when there is one. */
  const nextPath = (tried: string, error: unknown): boolean => {
    if ((error as ServiceError).code as number !== GrpcCode.UNIMPLEMENTED) return false;
    const at = s.paths.indexOf(tried);
    if (at === -1 || at + 1 >= s.paths.length) return false;
    if (pathIndex === at) pathIndex = at + 1;
    return true;
  };
  const path = (): string => s.paths[pathIndex] as string;

  const maxInFlight = s.policy.maxInFlight;
  function pick(context: RequestContext, tried: ServiceInstance[] | undefined, lastError: unknown): ServiceInstance {
    if (callerCancelled(context)) throw new ForwardingError(GrpcCode.CANCELLED, 'the call was cancelled before it was forwarded');
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

  /** One unary attempt on the lean client (request bytes serialized once per call, by the caller). */
  const leanAttempt = (codec: MessageCodec, bytes: Buffer, headers: H2RequestMetadata): AttemptStarter => (instance, at, deadline, done) => {
    const call = h2ChannelOf(instance).unary(at, bytes, headers, deadline, (error, message, answered, reply) => {
      if (error !== null) {
        done(error, undefined, answered);
        return;
      }
      let response: unknown;
      try {
        response = codec.deserialize(message as Buffer);
      } catch (e) {
        done(callError(GrpcCode.INTERNAL, `Response message parsing error: ${(e as Error).message}`), undefined, true);
        return;
      }
      done(null, response, true, reply);
    });
    return () => call.cancel();
  };

  /**
   * One unary attempt over grpc-js. The call decodes its reply through its own
   * deserializer, which keeps the message: when the connection then drops
   * before the status (UNAVAILABLE after a whole reply), that reply is the
   * call's result, as on the lean client.
   */
  const grpcAttempt = (codec: MessageCodec, bytes: Buffer, metadata: Metadata): AttemptStarter => (instance, at, deadline, done) => {
    let answered = false;
    let headers: Metadata | undefined;
    let reply: { message: unknown } | undefined;
    const keepReply = (b: Buffer): unknown => {
      const message = codec.deserialize(b);
      reply = { message };
      return message;
    };
    let succeeded: { response: unknown } | undefined;
    const call = channelOf(instance, s.forwarding).makeUnaryRequest(at, identity, keepReply, bytes, metadata, { deadline }, (error, response) => {
      const received = { headers: headers?.toHttp2Headers() as IncomingHttpHeaders | undefined, trailers: undefined };
      // A success waits for the 'status' event grpc-js emits right after this callback: it carries the trailers.
      if (error === null) succeeded = { response };
      else if (answered && reply !== undefined && (error.code as number) === GrpcCode.UNAVAILABLE) done(null, reply.message, true, received);
      else done(error, undefined, answered);
    });
    call.on('metadata', (md: Metadata) => {
      answered = true;
      headers = md;
    });
    call.on('status', (status: { metadata?: Metadata }) => {
      if (succeeded === undefined) return;
      const trailers = status.metadata?.toHttp2Headers() as IncomingHttpHeaders | undefined;
      done(null, succeeded.response, true, { headers: headers?.toHttp2Headers() as IncomingHttpHeaders | undefined, trailers });
    });
    return () => call.cancel();
  };

  const unaryForwarding: UnaryForwarding = {
    service: s.service, idempotent: s.idempotent, policy: s.policy, pick, path, nextPath, observe: s.observe,
  };

  /** The handler for one message codec. */
  function handler(codec: MessageCodec): (request: unknown, context: RequestContext) => unknown {
    const streams: StreamForwarding = {
      pick, path, nextPath, observe: s.observe, serialize: codec.serialize, deserialize: codec.deserialize,
      open: (instance, at, context) => {
        const headers = forwardedMetadata(context, forwardHeaders);
        const deadline = callerDeadline(context);
        return lean ? h2ChannelOf(instance).stream(at, headers, deadline) : grpcJsCall(channelOf(instance, s.forwarding), at, toGrpcMetadata(headers), deadline);
      },
    };
    switch (s.streaming) {
      case 'none':
        return (request, context) => {
          let bytes: Buffer;
          try {
            bytes = codec.serialize(request);
          } catch (error) {
            return Promise.reject(callError(GrpcCode.INTERNAL, `Request message serialization failure: ${(error as Error).message}`));
          }
          const headers = forwardedMetadata(context, forwardHeaders);
          const start = lean ? leanAttempt(codec, bytes, headers) : grpcAttempt(codec, bytes, toGrpcMetadata(headers));
          return forwardUnary(unaryForwarding, start, context);
        };
      case 'server': return (request, context) => forwardServerStream(streams, request, context);
      case 'client': return (requests, context) => forwardClientStream(streams, requests, context);
      case 'bidirectional': return (requests, context) => forwardBidiStream(streams, requests, context);
    }
  }

  const remote: RemoteMethod = {
    streaming: s.streaming,
    handler: handler({ serialize: (v) => s.requestCodec.serialize(v), deserialize: (b) => s.responseCodec.deserialize(b) }),
  };
  if (s.protobuf) {
    // Stream items that came as gRPC+JSON arrive decoded: those are encoded as usual.
    remote.passThrough = handler({ serialize: (v) => (v instanceof RawMessage ? v.bytes : s.requestCodec.serialize(v)), deserialize: (b) => new RawMessage(b) });
  }
  return remote;
}
