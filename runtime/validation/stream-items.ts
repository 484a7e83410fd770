/**
 * Validation of client and bidi request streams, shared by the gateway and
 * `server.grpc()`: by default the first invalid item ends the call (as an
 * invalid unary request does); a method that opted in with
 * `invalidItems: 'deliver'` receives every item, invalid ones marked with
 * their violations (read with `violationsOf`).
 */
import { deliverInvalid, isInvalidMessageError, violationsOf } from './violations';

/** What a client or bidi stream does with an item that breaks its rules. */
export type InvalidItemPolicy = 'fail' | 'deliver';

/** `source` with `validate` applied to each item under `policy`. */
export async function* validateEach(source: AsyncIterable<unknown>, validate: (item: unknown) => void, policy: InvalidItemPolicy): AsyncIterable<unknown> {
  for await (const item of source) {
    if (policy === 'fail') validate(item);
    else if (violationsOf(item) === undefined) {
      try {
        validate(item);
      } catch (error) {
        if (!isInvalidMessageError(error) || item === null || typeof item !== 'object') throw error;
        deliverInvalid(item, error.violations);
      }
    }
    yield item;
  }
}

/** Checks a registration's `invalidItems` value. */
export function checkInvalidItems(value: unknown, where: string): InvalidItemPolicy {
  if (value === undefined || value === 'fail' || value === 'deliver') return value ?? 'fail';
  throw new TypeError(`${where}.invalidItems must be 'fail' or 'deliver'`);
}
