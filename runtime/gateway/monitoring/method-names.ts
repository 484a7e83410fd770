/**
 * Fully qualified method names (`user.UserService/GetUser`) for spans, and
 * the test of whether a call names a method served here at all: a call to an
 * unknown one is still counted and spanned, but as `_OTHER`, so names a
 * client makes up never become new label values or span names.
 */

/** Names a served method fully, or undefined when nothing here serves it. */
export type MethodNamer = (service: string, method: string) => string | undefined;

/** The conventions' stand-in for a method the server does not recognise. */
export const OTHER_METHOD = '_OTHER';

export class MethodNames {
  readonly #namer: MethodNamer;
  /** Only served methods are remembered, so the map is bounded by what is registered. */
  readonly #known = new Map<string, string>();

  constructor(namer: MethodNamer = (service, method) => `${service}/${method}`) {
    this.#namer = namer;
  }

  /** The fully qualified name of `service`/`method`, or undefined when it is not served here. */
  of(service: string, method: string): string | undefined {
    const key = `${service}\u0000${method}`;
    const cached = this.#known.get(key);
    if (cached !== undefined) return cached;
    const name = this.#namer(service, method);
    if (name !== undefined) this.#known.set(key, name);
    return name;
  }
}
