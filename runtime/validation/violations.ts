/**
 * What a refused message looks like to every protocol: a list of field
 * violations (field path, rule id, message) carried by one error. Light on
 * purpose (no protobuf runtime): transports and `fw`'s public `violationsOf`
 * import it without loading protovalidate.
 */

/** One broken rule: where (proto field path, `address.zip_code`, `items[2]`), which rule, and why. */
export interface FieldViolation {
  /** Path from the message root in proto field names; empty for the message itself. */
  field: string;
  /** protovalidate rule id (`string.min_len`, a CEL rule's `id`), or `proto3_json` for a value the JSON mapping refuses. */
  rule: string;
  message: string;
}

/** Rule id of violations found while decoding canonical proto3 JSON (wrong type, unknown field, two oneof members…). */
export const JSON_MAPPING_RULE = 'proto3_json';

/**
 * A request (or, with response validation on, a response) that breaks its
 * message's rules. Named `ValidationError` so spec 7.1's error middleware
 * recognises it; the gateway renders it as `VALIDATION_ERROR` (400), gRPC as
 * INVALID_ARGUMENT with a `google.rpc.BadRequest` in `grpc-status-details-bin`.
 */
export class InvalidMessageError extends Error {
  override readonly name = 'ValidationError';
  readonly violations: readonly FieldViolation[];
  /** `request` → the caller's fault (400); `response` → the handler's (500). */
  readonly direction: 'request' | 'response';

  constructor(violations: readonly FieldViolation[], direction: 'request' | 'response' = 'request') {
    super(summarize(violations, direction));
    this.violations = violations;
    this.direction = direction;
  }
}

function summarize(violations: readonly FieldViolation[], direction: 'request' | 'response'): string {
  const first = violations[0];
  const head = direction === 'request' ? 'Invalid request' : 'Invalid response';
  if (first === undefined) return head;
  const where = first.field === '' ? '' : `${first.field}: `;
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  return `${head}: ${where}${first.message}${more}`;
}

/** True for the error above, recognised by shape so a second copy of the runtime still matches. */
export function isInvalidMessageError(error: unknown): error is InvalidMessageError {
  return error instanceof Error && error.name === 'ValidationError' && Array.isArray((error as { violations?: unknown }).violations);
}

const delivered = new WeakMap<object, readonly FieldViolation[]>();

/** Marks a stream item delivered despite its violations (methods with `invalidItems: 'deliver'`). */
export function deliverInvalid<T extends object>(item: T, violations: readonly FieldViolation[]): T {
  delivered.set(item, violations);
  return item;
}

/**
 * The violations of a client-stream item that a method chose to receive
 * (`invalidItems: 'deliver'`); undefined for a valid item. Handlers read the
 * verdict, they never run a validator.
 *
 * @example
 * for await (const request of requests) {
 *   const violations = violationsOf(request);
 *   if (violations !== undefined) { failed.push(violations[0].message); continue; }
 *   created.push(store.create(request));
 * }
 */
export function violationsOf(item: unknown): readonly FieldViolation[] | undefined {
  return item !== null && typeof item === 'object' ? delivered.get(item) : undefined;
}
