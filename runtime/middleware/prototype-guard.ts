/**
 * Refuses parsed input that carries `__proto__` or `constructor.prototype`
 * keys: harmless as own properties, but the classic prototype-pollution
 * payload once application code merges them into other objects.
 * secure-json-parse does the scanning.
 */
import { scan } from 'secure-json-parse';
import { MiddlewareError } from './middleware-error';

const SCAN_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

// Every way the two keys can be spelt in JSON text contains one of these byte
// runs (a `\u` escape can hide any letter), so text without them needs no scan.
const MARKERS = ['proto', 'constructor', '\\u'] as const;

/** True when raw JSON text could contain a forbidden key and the parsed value needs scanning. */
export function mayHoldPrototypeKeys(raw: Buffer): boolean {
  for (const marker of MARKERS) {
    if (raw.includes(marker)) return true;
  }
  return false;
}

/**
 * Throws a 400 {@link MiddlewareError} when `value` (parsed JSON, form or
 * query data) holds a `__proto__` or `constructor.prototype` key at any depth.
 *
 * @example
 * assertNoPrototypeKeys(req.query, 'query string');
 */
export function assertNoPrototypeKeys(value: unknown, where: string): void {
  if (value === null || typeof value !== 'object') return;
  try {
    scan(value, SCAN_OPTIONS);
  } catch (error) {
    throw new MiddlewareError(400, `The ${where} contains a forbidden key (__proto__ or constructor.prototype)`, 'entity.forbidden.key', { cause: error });
  }
}
