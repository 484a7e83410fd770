/**
 * One UDP call: a datagram holds exactly one unary request and gets exactly
 * one reply. This is CallSession.start's unary branch without the session:
 * no per-datagram session, id map, reply-sink closures or options object —
 * a datagram has no connection to track calls on. The envelope checks
 * (session/envelope-checks.ts) and the deadline reader (rpc/deadline.ts) are
 * CallSession's, so UDP answers bad input as TCP and WebSocket do.
 */
import type { RemoteInfo } from 'node:dgram';
import type { TracingInfo } from '../../core/request-context';
import { decodeFailure, ServiceErrors, toServiceError, type ServiceError } from '../errors';
import { envelopeDeadline, type CallDeadline } from '../../rpc/deadline';
import type { GatewayCore } from '../gateway-core';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import type { EnvelopeRequest } from '../session/call-session';
import { envelopeHeadError } from '../session/envelope-checks';
import { envelopeTracing } from '../../rpc/tracing';
import { udpContext } from './context';
import { DatagramReplySink, type DatagramReplies } from './reply-sink';

/** Runs the request in `message` (already decoded) and sends its one reply. Never throws. */
export function startDatagramCall(core: GatewayCore, replies: DatagramReplies, message: EnvelopeRequest, peer: RemoteInfo, signal: AbortSignal): void {
  const id = message.id;
  const tracing = envelopeTracing(message);
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
  let request: unknown;
  let refusal: ServiceError | undefined;
  // Datagrams give no ordering or end-of-stream: every streaming mode is refused, through the dispatcher so metrics count it.
  if (streaming !== 'none') refusal = ServiceErrors.unsupportedStreaming('udp', streaming);
  else {
    try {
      request = resolved?.fromJSON === undefined ? (message.data ?? {}) : resolved.fromJSON(message.data);
    } catch (error) {
      refusal = decodeFailure(error);
    }
  }
  let deadline: CallDeadline | undefined;
  try {
    deadline = envelopeDeadline(message.timeout);
  } catch (error) {
    replies.error(peer, id, toServiceError(error), traceId);
    return;
  }
  if (deadline !== undefined) {
    startWithDeadline(core, replies, message, peer, signal, { id, tracing, resolved, request, refusal, deadline });
    return;
  }
  const context = udpContext(peer, message, tracing, signal);
  const sink = new DatagramReplySink(replies, peer, id, method, traceId, context);
  const running = refusal === undefined ? core.dispatcher.call(resolved, service, method, request, context, message) : core.dispatcher.refuse(resolved, service, method, refusal, context, message);
  running.then(
    (result) => answer(sink, resolved, result),
    (error: unknown) => sink.fail(toServiceError(error)),
  );
}

interface DeadlineCall {
  readonly id: unknown;
  readonly tracing: TracingInfo;
  readonly resolved: ResolvedMethod | undefined;
  readonly request: unknown;
  readonly refusal: ServiceError | undefined;
  readonly deadline: CallDeadline;
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
  const method = message.method as string;
  const sink = new DatagramReplySink(replies, peer, call.id, method, traceId, context);
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
    sink.fail(ServiceErrors.deadlineExceeded(call.deadline.ms));
    controller.abort();
  }, call.deadline.ms);
  const service = message.service as string;
  const running = call.refusal === undefined
    ? core.dispatcher.call(call.resolved, service, method, call.request, context, message, call.deadline)
    : core.dispatcher.refuse(call.resolved, service, method, call.refusal, context, message);
  running.then(
    (result) => {
      if (settle()) answer(sink, call.resolved, result);
    },
    (error: unknown) => {
      if (settle()) sink.fail(toServiceError(error));
    },
  );
}

function answer(sink: DatagramReplySink, resolved: ResolvedMethod | undefined, result: unknown): void {
  let data: unknown;
  try {
    data = resolved?.toJSON === undefined ? result : resolved.toJSON(result);
  } catch (error) {
    // A result that cannot be converted is the handler's failure.
    sink.fail(toServiceError(error));
    return;
  }
  sink.message(data);
}
