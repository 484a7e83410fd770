/**
 * How a call is read off a UDP datagram: one request frame (type 1) per
 * datagram, or what the user's `protocol.parseMessage` makes of the bytes,
 * then `routeMessage`. Anything else throws a ServiceError, which the
 * transport answers with a refusal no larger than the datagram.
 */
import { ServiceErrors } from '../errors';
import type { EnvelopeRequest } from '../session/call-session';
import { decodeFrame, FrameType, type Frame } from '../wire/frame-codec';

/** The parts of `configureUDP` that shape reading. */
export interface DatagramReading {
  readonly protocol?: { readonly parseMessage?: (buffer: Buffer) => unknown };
  readonly routeMessage?: (message: unknown) => Partial<EnvelopeRequest> | undefined;
}

/** The request envelope a datagram carries; throws a ServiceError when it carries none. */
export function readDatagram(msg: Buffer, config: DatagramReading, maxPacket: number): EnvelopeRequest {
  let message: unknown;
  const parseMessage = config.protocol?.parseMessage;
  if (parseMessage !== undefined) {
    message = parseMessage(msg);
  } else {
    const frame: Frame = decodeFrame(msg, maxPacket);
    if (frame.type !== FrameType.Request) throw ServiceErrors.badRequest(`UDP carries request frames (type 1) only, got type ${frame.type}`);
    message = frame.payload;
  }
  if (config.routeMessage !== undefined) {
    const routed = config.routeMessage(message);
    if (routed !== undefined && routed !== null) message = { ...(message as object), ...routed };
  }
  if (message === null || typeof message !== 'object') throw ServiceErrors.badRequest('A UDP message must decode to an object');
  return message as EnvelopeRequest;
}
