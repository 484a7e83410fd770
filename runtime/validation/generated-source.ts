/**
 * The text of one generated function set (a type's JSON reader or writer
 * and every message type it reaches), with the values its code refers to.
 * Values are passed in as parameters `k0`, `k1`, …, never spelled into the
 * text: only names fw quotes with JSON.stringify reach it, so no string of
 * the proto becomes code.
 */
import { ownSites } from './ts-proto-shapes';

export class GeneratedSource {
  readonly #values: unknown[] = [];
  readonly #known = new Map<unknown, string>();
  #names = 0;

  /** The parameter name under which the code sees `value` (one per distinct value). */
  value(value: unknown): string {
    const known = this.#known.get(value);
    if (known !== undefined) return known;
    const name = `k${this.#values.length}`;
    this.#values.push(value);
    this.#known.set(value, name);
    return name;
  }

  /** A fresh local variable name. */
  local(prefix = 'v'): string {
    return `${prefix}${this.#names++}`;
  }

  /** `body` (ending in a `return`) compiled with the values bound. */
  compile<T>(body: string): T {
    return ownSites<T>(
      this.#values.map((_, i) => `k${i}`),
      body,
      ...this.#values,
    );
  }
}

/** A string as a JavaScript literal. */
export const literal = (text: string): string => JSON.stringify(text);
