/**
 * Forwarding without re-encoding. A gRPC call to a service the gateway only
 * forwards (a discovered service configured by descriptor) can hand the
 * caller's protobuf bytes to the instance as they came, and the instance's
 * reply bytes back, when nothing at the gateway needs the decoded message:
 *
 * - the method's request has no `buf.validate` rules (or its service leaves
 *   validation to its instances, `validation: 'instance'`), and responses are
 *   not validated (`validateResponses`, an output schema);
 * - no service middleware and no `authorize` callback (both receive the
 *   request); rate limits and authentication still run, they never read it;
 * - no dispatch interceptor that may read `call.request` is installed
 *   (`gateway.use`); fw's monitoring interceptor never reads it and is
 *   marked so (`markMessageBlind`);
 * - the message came as binary protobuf, not gRPC+JSON (those are decoded
 *   and re-encoded, as JSON must be).
 *
 * The first two are fixed when the service is registered (`passThrough` on
 * its ResolvedMethod), the last two are checked per call by the transport.
 * Bytes the instance cannot decode are the instance's to refuse, as any gRPC
 * server refuses them.
 */

import type { RequestContext } from '../core/request-context';

/** A message kept as the protobuf bytes it arrived in (request) or will leave in (response). */
export class RawMessage {
  constructor(readonly bytes: Buffer) {}
}

/** The byte-forwarding twins of a forwarded service's handlers, by camelCase method name. */
export interface PassThroughSpec {
  /** Each takes and returns RawMessages (an AsyncIterable of them for streams). */
  handlers: Record<string, (request: unknown, context: RequestContext) => unknown>;
  /** The instances check requests against their rules (`validation: 'instance'`): the gateway need not decode them for that. */
  instanceValidates: boolean;
}

/** Where discovery hangs a PassThroughSpec on the handlers object it registers with `addService(descriptor, handlers)`. */
export const PASS_THROUGH: unique symbol = Symbol('fw.passThrough');

/** The PassThroughSpec carried by `handlers`, if any. */
export function passThroughSpec(handlers: object): PassThroughSpec | undefined {
  return (handlers as { [PASS_THROUGH]?: PassThroughSpec })[PASS_THROUGH];
}

export { isMessageBlind, markMessageBlind } from '../rpc/message-blind';
