/** Request metadata as a call's middleware, handlers and RequestContext read it. */

/** The call's request metadata as spec 4.6 shows it. */
export interface CallMetadata {
  /** Every value of `name` (lowercase); empty when absent. */
  get(name: string): (string | Buffer)[];
  /** One value per key (the first), as a plain object. */
  getMap(): Record<string, string | Buffer>;
}
