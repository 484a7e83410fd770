/**
 * What the generated browser client knows about each RPC: the gateway
 * service and method names, the call kind, and the JSON codec of its
 * messages (ts-proto's `fromPartial`/`toJSON` and `fromJSON`). Built with
 * `rpc()`, which is marked pure so bundlers drop the RPCs a page never uses.
 */

import type { PartialMessage } from '../core/partial-message';

export type { PartialMessage };

/** The four call kinds. */
export type CallKind = 'unary' | 'server' | 'client' | 'bidi';

/** The JSON half of a ts-proto message object. */
export interface JsonMessage<T> {
  fromJSON(object: unknown): T;
  toJSON(message: T): unknown;
  fromPartial(object: never): T;
}

/** One RPC as the transports see it: names and kind, and how to turn messages into JSON and back. */
export interface Method<I = unknown, O = unknown, K extends CallKind = CallKind> {
  /** Gateway service name (`UserService`). */
  readonly service: string;
  /** camelCase method name (`getUser`). */
  readonly method: string;
  readonly kind: K;
  /** Request (partial message) → its proto3 JSON. */
  readonly encode: (message: I) => unknown;
  /** Response proto3 JSON → message. */
  readonly decode: (json: unknown) => O;
}

/**
 * Describes one RPC (generated code calls this once per RPC).
 * @example
 * const getUser = rpc('UserService', 'getUser', 'unary', GetUserRequest, User);
 */
export function rpc<I, O, K extends CallKind>(service: string, method: string, kind: K, input: JsonMessage<I>, output: JsonMessage<O>): Method<PartialMessage<I>, O, K> {
  const complete = input.fromPartial as (object: unknown) => I;
  return { service, method, kind, encode: (message) => input.toJSON(complete(message)), decode: (json) => output.fromJSON(json) };
}
