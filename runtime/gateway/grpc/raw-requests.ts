/**
 * The gRPC transport's side of forwarding without re-encoding
 * (../pass-through.ts): binary requests of methods that may forward bytes
 * arrive as RawMessages; each call then either keeps them (the method's
 * pass-through twin runs) or decodes them here, exactly as the method's own
 * deserializer would have.
 */
import { RawMessage } from '../pass-through';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import { Undecodable } from './message-format';

/** `value` as the method dispatched takes it: kept as bytes when `passing`, else decoded (an Undecodable when it cannot be). */
export function requestFor(resolved: ResolvedMethod | undefined, passing: boolean, value: unknown): unknown {
  if (passing || !(value instanceof RawMessage)) return value;
  const decode = resolved?.fromBinary ?? resolved?.descriptor?.requestCodec.decode;
  if (decode === undefined) return new Undecodable(new Error('no protobuf decoder for this method'));
  try {
    return decode(value.bytes);
  } catch (error) {
    return new Undecodable(error);
  }
}

/** A reply the instance passed back as bytes, decoded for a caller that needs a value (gRPC+JSON). */
export function decodedReply(resolved: ResolvedMethod | undefined, value: unknown): unknown {
  const codec = resolved?.descriptor?.responseCodec;
  return value instanceof RawMessage && codec !== undefined ? codec.decode(value.bytes) : value;
}
