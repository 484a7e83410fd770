/**
 * gRPC+JSON beside binary protobuf on the same method path. grpc-js hides
 * the request's content-type from handlers and answers INTERNAL when a
 * deserializer throws, so request messages are sniffed instead: a message
 * starting with `{` is JSON (as binary protobuf it would open a group with
 * field number 15, which proto3 never writes), anything else is protobuf.
 * Deserializers never throw: a message that cannot be decoded becomes an
 * `Undecodable` the handler turns into INVALID_ARGUMENT with the reason.
 * Replies to JSON requests are JSON (`JsonReply`), sent with
 * `content-type: application/grpc+json`.
 */
import { jsonTextTooDeep, TOO_DEEP_MESSAGE } from '../../core/json-depth';
import { hasPrototypeKeys, textMayHavePrototypeKeys } from '../../core/prototype-keys';
import { isInvalidMessageError } from '../../validation/violations';
import { catalogueError, type ServiceError, ServiceErrors } from '../errors';

/** Content-type of replies to gRPC+JSON requests. */
export const GRPC_JSON_CONTENT_TYPE = 'application/grpc+json';

/** A request message that could not be decoded; `error` says why. */
export class Undecodable {
  constructor(readonly error: unknown) {}
}

/** A response already encoded as JSON text. */
export class JsonReply {
  constructor(readonly bytes: Buffer) {}
}

const fromJsonWire = new WeakSet<object>();

/** True when `request` was decoded from a gRPC+JSON message. */
export function cameAsJson(request: unknown): boolean {
  return request !== null && typeof request === 'object' && fromJsonWire.has(request);
}

/** Parses a JSON message through the shared depth limit and prototype-key guard; throws a ServiceError. */
export function parseJsonMessage(bytes: Buffer): unknown {
  if (bytes.length === 0) return {};
  const text = bytes.toString('utf8');
  if (jsonTextTooDeep(text)) throw catalogueError('INVALID_ARGUMENT', TOO_DEEP_MESSAGE);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw catalogueError('INVALID_JSON', 'Message is not valid JSON');
  }
  if (textMayHavePrototypeKeys(text) && hasPrototypeKeys(value)) throw ServiceErrors.prototypeKey();
  return value;
}

/**
 * A deserializer for a generated method: gRPC+JSON through `fromJSON`
 * (strict proto3 JSON), binary through `fromBinary`.
 */
export function sniffingDeserializer(fromJSON: (json: unknown) => unknown, fromBinary: (bytes: Uint8Array) => unknown): (bytes: Buffer) => unknown {
  return (bytes) => {
    try {
      if (bytes.length > 0 && bytes[0] === 0x7b /* { */) {
        const value = fromJSON(parseJsonMessage(bytes));
        if (value !== null && typeof value === 'object') fromJsonWire.add(value);
        return value;
      }
    } catch (error) {
      return new Undecodable(error);
    }
    try {
      return fromBinary(bytes);
    } catch (error) {
      // Bytes that are not protobuf are INVALID_ARGUMENT as on Connect and gRPC-Web, with or without buf.validate rules.
      const reason = isInvalidMessageError(error) ? (error.violations[0]?.message ?? error.message) : (error as Error).message;
      return new Undecodable(catalogueError('INVALID_ARGUMENT', `Request is not a valid protobuf message: ${reason}`));
    }
  };
}

/** A deserializer for inline (JSON-codec) methods that never throws. */
export function jsonDeserializer(bytes: Buffer): unknown {
  try {
    return parseJsonMessage(bytes);
  } catch (error) {
    return new Undecodable(error);
  }
}
