/**
 * Refuses parsed input that carries `__proto__` or `constructor.prototype`
 * keys, through the runtime's one guard (core/prototype-keys.ts), as a 400
 * MiddlewareError.
 */
import { bytesMayHavePrototypeKeys, hasPrototypeKeys } from '../core/prototype-keys';
import { MiddlewareError } from './middleware-error';

/** True when raw JSON text could contain a forbidden key and the parsed value needs scanning. */
export function mayHoldPrototypeKeys(raw: Buffer): boolean {
  return bytesMayHavePrototypeKeys(raw);
}

/**
 * Throws a 400 {@link MiddlewareError} when `value` (parsed JSON, form or
 * query data) holds a `__proto__` or `constructor.prototype` key at any depth.
 *
 * @example
 * assertNoPrototypeKeys(req.query, 'query string');
 */
export function assertNoPrototypeKeys(value: unknown, where: string): void {
  if (hasPrototypeKeys(value)) {
    throw new MiddlewareError(400, `The ${where} contains a forbidden key (__proto__ or constructor.prototype)`, 'entity.forbidden.key');
  }
}
