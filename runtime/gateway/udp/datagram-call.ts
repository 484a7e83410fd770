/**
 * One UDP call: a datagram holds exactly one unary request and gets exactly
 * one reply. This is CallSession.start's unary branch without the session:
 * no per-datagram session, id map, reply-sink closures or options object —
 * a datagram has no connection to track calls on. The envelope checks
 * (session/envelope-checks.ts) and the deadline reader (rpc/deadline.ts) are
 * CallSession's, so UDP answers bad input as TCP and WebSocket do.
 */
import type { RemoteInfo } from 'node:dgram';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import { decodeFailure, ServiceErrors, toServiceError, type ServiceError } from '../errors';
import { deadlineIn, envelopeTimeout } from '../../rpc/deadline';
import type { GatewayCore } from '../gateway-core';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import type { EnvelopeRequest } from '../session/call-session';
import { envelopeHeadError } from '../session/envelope-checks';
import { tracingFrom } from '../tracing';
import { envelopeMetadata, type EnvelopeMetadata } from '../wire/envelope-metadata';
import { udpContext } from './context';

/**
 * How a datagram call answers its sender. Neither method throws: a reply
 * that cannot be encoded becomes an INTERNAL_ERROR reply instead.
 */
export interface DatagramReplies {
  response(peer: RemoteInfo, id: unknown, method: string, data: unknown, traceId: string, meta?: EnvelopeMetadata): void;
  error(peer: RemoteInfo, id: unknown, error: ServiceError, traceId: string | undefined, meta?: EnvelopeMetadata): void;
  /** Refuses input that is not a well-formed request with a reply of at most `limit` bytes, or none (no amplification). */
  refuse(peer: RemoteInfo, error: ServiceError, limit: number): void;
}

/** Runs the request in `message` (already decoded) and sends its one reply. Never throws. */
export function startDatagramCall(core: GatewayCore, replies: DatagramReplies, message: EnvelopeRequest, peer: RemoteInfo, signal: AbortSignal): void {
  const id = message.id;
  const tracing = tracingFrom(message.traceId, message.traceparent);
  const traceId = tracing.traceId;
  const refused = envelopeHeadError(message);
  if (refused !== undefined) {
    replies.error(peer, refused.replyId, refused.error, traceId);
    return;
  }
  const service = message.service as string;
  const method = message.method as string;
  const resolved = core.dispatcher.resolve(service, method);
  const streaming = resolved === undefined ? 'none' : resolved.streaming;
  if (streaming !== 'none') {
    // Datagrams give no ordering or end-of-stream: every streaming mode is refused.
    replies.error(peer, id, ServiceErrors.unsupportedStreaming('udp', streaming), traceId);
    return;
  }
  let request: unknown;
  let refusal: ServiceError | undefined;
  try {
    request = resolved?.fromJSON === undefined ? (message.data ?? {}) : resolved.fromJSON(message.data);
  } catch (error) {
    refusal = decodeFailure(error);
  }
  let timeout: number | undefined;
  try {
    timeout = envelopeTimeout(message.timeout);
  } catch (error) {
    replies.error(peer, id, toServiceError(error), traceId);
    return;
  }
  if (timeout !== undefined) {
    startWithDeadline(core, replies, message, peer, signal, { id, tracing, resolved, request, refusal, timeout });
    return;
  }
  const context = udpContext(peer, message, tracing, signal);
  const running = refusal === undefined ? core.dispatcher.call(resolved, service, method, request, context, message) : core.dispatcher.refuse(resolved, service, method, refusal, context, message);
  running.then(
    (result) => answer(replies, peer, id, method, resolved, result, traceId, context),
    (error: unknown) => replies.error(peer, id, toServiceError(error), traceId, envelopeMetadata(context, true)),
  );
}

interface DeadlineCall {
  readonly id: unknown;
  readonly tracing: TracingInfo;
  readonly resolved: ResolvedMethod | undefined;
  readonly request: unknown;
  readonly refusal: ServiceError | undefined;
  readonly timeout: number;
}

/**
 * A call with an envelope `timeout`: its own signal, aborted at the deadline
 * (or with the transport's), and one reply, whichever comes first: the
 * handler's answer or DEADLINE_EXCEEDED.
 */
function startWithDeadline(core: GatewayCore, replies: DatagramReplies, message: EnvelopeRequest, peer: RemoteInfo, transport: AbortSignal, call: DeadlineCall): void {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  transport.addEventListener('abort', stop, { once: true });
  const context = udpContext(peer, message, call.tracing, controller.signal);
  const traceId = call.tracing.traceId;
  let replied = false;
  const settle = (): boolean => {
    if (replied) return false;
    replied = true;
    clearTimeout(timer);
    transport.removeEventListener('abort', stop);
    return true;
  };
  const timer = setTimeout(() => {
    if (!settle()) return;
    replies.error(peer, call.id, ServiceErrors.deadlineExceeded(call.timeout), traceId, envelopeMetadata(context, true));
    controller.abort();
  }, call.timeout);
  const service = message.service as string;
  const method = message.method as string;
  const running = call.refusal === undefined
    ? core.dispatcher.call(call.resolved, service, method, call.request, context, message, deadlineIn(call.timeout))
    : core.dispatcher.refuse(call.resolved, service, method, call.refusal, context, message);
  running.then(
    (result) => {
      if (settle()) answer(replies, peer, call.id, method, call.resolved, result, traceId, context);
    },
    (error: unknown) => {
      if (settle()) replies.error(peer, call.id, toServiceError(error), traceId, envelopeMetadata(context, true));
    },
  );
}

function answer(replies: DatagramReplies, peer: RemoteInfo, id: unknown, method: string, resolved: ResolvedMethod | undefined, result: unknown, traceId: string, context: RequestContext): void {
  let data: unknown;
  try {
    data = resolved?.toJSON === undefined ? result : resolved.toJSON(result);
  } catch (error) {
    // A result that cannot be converted is the handler's failure.
    replies.error(peer, id, toServiceError(error), traceId, envelopeMetadata(context, true));
    return;
  }
  replies.response(peer, id, method, data, traceId, envelopeMetadata(context, true));
}
