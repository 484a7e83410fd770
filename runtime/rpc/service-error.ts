/**
 * `ServiceError`: what handlers throw to choose the code, HTTP status and
 * details every transport shows for a failure. Errors fw raises itself come
 * from the catalogue (error-catalogue.ts), which builds these too.
 */

/**
 * A failure with a stable string code, an HTTP status and optional details.
 *
 * @example
 * throw new ServiceError('USER_NOT_FOUND', `User ${id} not found`, 404, { id });
 */
export class ServiceError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly details: unknown;

  constructor(code: string, message: string, statusCode = 500, details?: unknown) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.statusCode = statusCode;
    this.details = details;
  }
}
