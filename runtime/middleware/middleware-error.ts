/**
 * The error every `fw/middleware` refusal hands to `next()`. It carries
 * `statusCode` (and Express's `status`) so the app's error handler answers
 * `{ error: message }` with that status (spec 7.2), and a stable `type`
 * naming the refusal so applications can branch on it.
 */

/** Stable names of the refusals `fw/middleware` produces. */
export type MiddlewareErrorType =
  | 'entity.too.large'
  | 'entity.parse.failed'
  | 'entity.forbidden.key'
  | 'entity.verify.failed'
  | 'charset.unsupported'
  | 'encoding.unsupported'
  | 'request.aborted'
  | 'request.size.invalid'
  | 'parameters.too.many'
  | 'upload.limit'
  | 'upload.rejected'
  | 'upload.malformed'
  | 'rate.limited'
  | 'store.unavailable'
  | 'path.forbidden'
  | 'path.malformed'
  | 'internal';

/**
 * A refused request: status, clear message, stable type.
 *
 * @example
 * app.use((error, req, res, next) => {
 *   if (error instanceof MiddlewareError && error.type === 'entity.too.large') {
 *     return res.status(413).json({ error: error.message });
 *   }
 *   next(error);
 * });
 */
export class MiddlewareError extends Error {
  /** HTTP status to answer with. */
  readonly statusCode: number;
  /** Same as `statusCode`; Express and http-errors read this name. */
  readonly status: number;
  /** Stable refusal name. */
  readonly type: MiddlewareErrorType;
  /** The message is safe to show to the client (always true below 500). */
  readonly expose: boolean;

  constructor(statusCode: number, message: string, type: MiddlewareErrorType, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MiddlewareError';
    this.statusCode = statusCode;
    this.status = statusCode;
    this.type = type;
    // A store outage is the client's to know: retry later.
    this.expose = statusCode < 500 || type === 'store.unavailable';
  }
}

/** Reads a numeric `statusCode`/`status` off an unknown error, if it has one. */
export function statusOf(error: unknown): number | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const record = error as { statusCode?: unknown; status?: unknown };
  const status = typeof record.statusCode === 'number' ? record.statusCode : record.status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}
