/**
 * Replies in the frame protocol, shared by TCP, UDP and WebSocket `binary`:
 * type 2 `{id, method, data, traceId}`, 4 `{id, data, traceId}`,
 * 5 `{id, traceId}`, 3 `{id, error: {code, message, details}, traceId}`.
 * And the reverse: a request-side frame turned into CallSession events.
 */
import type { Protocol } from '../../core/request-context';
import { ServiceErrors, type ServiceError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import type { CallSession, EnvelopeRequest } from '../session/call-session';
import type { EnvelopeReplies } from '../session/envelope-replies';
import { BAD_HEADER, BAD_PAYLOAD, encodeFrame, encodeJsonFrame, FrameType, type Frame } from './frame-codec';
import { envelopeJson } from './reply-json';

/** The error payload of a type-3 frame (or the user's transformError output, merged with id/traceId). */
export function errorPayload(core: GatewayCore, protocol: Protocol, id: unknown, error: ServiceError, traceId: string | undefined): Record<string, unknown> {
  const custom = core.renderError(error, protocol);
  if (custom !== undefined && custom !== null && typeof custom === 'object') return { id, ...(custom as Record<string, unknown>), traceId };
  return { id, error: { code: error.code, message: error.message, details: error.details }, traceId };
}

/** Envelope replies written as frames through `send`. */
export function frameReplies(
  core: GatewayCore,
  protocol: Protocol,
  send: (frame: Buffer) => void,
  writable: () => Promise<void> | undefined,
): EnvelopeReplies {
  return {
    response: (id, method, data, traceId, meta) => send(encodeJsonFrame(FrameType.Response, envelopeJson(id, method, data, traceId, meta))),
    item: (id, data, traceId, meta) => send(encodeJsonFrame(FrameType.StreamItem, envelopeJson(id, undefined, data, traceId, meta))),
    end: (id, traceId, meta) => send(encodeFrame(FrameType.StreamEnd, { id, traceId, ...meta })),
    error: (id, error, traceId, meta) => send(encodeFrame(FrameType.Error, { ...errorPayload(core, protocol, id, error, traceId), ...meta })),
    writable,
  };
}

/** Routes one decoded request-side frame into the session; anything else gets an error reply. */
export function handleFrame(frame: Frame, session: CallSession, sink: EnvelopeReplies): void {
  const p = frame.payload;
  switch (frame.type) {
    case FrameType.Request:
      session.start(p as EnvelopeRequest);
      return;
    case FrameType.ClientStreamItem:
      session.push(p.id, p.data);
      return;
    case FrameType.ClientStreamEnd:
      session.end(p.id);
      return;
    case FrameType.Cancel:
      session.cancel(p.id);
      return;
    case BAD_PAYLOAD:
    case BAD_HEADER:
      sink.error(undefined, p.error as ServiceError, undefined);
      return;
    default:
      sink.error(p.id, ServiceErrors.badRequest(`Frame type ${frame.type} is not a request-side type (1, 6, 7 or 8)`), undefined);
  }
}
