/**
 * The checks every envelope request passes before it is a call, shared by
 * the connection transports (CallSession: WebSocket, TCP) and UDP's datagram
 * calls, so each refuses a malformed envelope with the same error.
 */
import { ServiceErrors, type ServiceError } from '../errors';

/** What an envelope must carry to name a call. */
export interface EnvelopeHead {
  id?: unknown;
  service?: unknown;
  method?: unknown;
}

/** Why `message` names no call, with the id to answer under; undefined when it is well-formed. */
export function envelopeHeadError(message: EnvelopeHead): { error: ServiceError; replyId: unknown } | undefined {
  const { id, service, method } = message;
  if (typeof service !== 'string' || service === '' || typeof method !== 'string' || method === '') {
    return { error: ServiceErrors.badRequest('A request needs string "service" and "method" fields'), replyId: id };
  }
  if (id !== undefined && typeof id !== 'string' && typeof id !== 'number') {
    // An id of another type cannot be echoed back: the reply has none.
    return { error: ServiceErrors.badRequest('"id" must be a string or a number'), replyId: undefined };
  }
  return undefined;
}
