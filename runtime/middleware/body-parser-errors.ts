/**
 * Turns body-parser/raw-body errors (http-errors with a `type`) into
 * {@link MiddlewareError}s with messages a client can act on.
 */
import { formatBytes } from './body-limit';
import { MiddlewareError, statusOf, type MiddlewareErrorType } from './middleware-error';

interface BodyParserErrorFields {
  type?: unknown;
  message?: unknown;
  limit?: unknown;
  charset?: unknown;
  encoding?: unknown;
}

/** Translates an error raised while reading or parsing a body of `kind` (e.g. `'JSON'`). */
export function bodyParserError(error: unknown, kind: string): MiddlewareError {
  if (error instanceof MiddlewareError) return error;
  const fields: BodyParserErrorFields = error !== null && typeof error === 'object' ? (error as BodyParserErrorFields) : {};
  const detail = typeof fields.message === 'string' ? fields.message : String(error);
  const cause = { cause: error };
  switch (fields.type) {
    case 'entity.too.large': {
      const limit = typeof fields.limit === 'number' ? ` ${formatBytes(fields.limit)}` : '';
      return new MiddlewareError(413, `Request body is larger than the${limit} limit`, 'entity.too.large', cause);
    }
    case 'entity.parse.failed':
      return new MiddlewareError(400, `Malformed ${kind} body: ${detail}`, 'entity.parse.failed', cause);
    case 'entity.verify.failed':
      return new MiddlewareError(403, `${kind} body was refused: ${detail}`, 'entity.verify.failed', cause);
    case 'charset.unsupported':
      return new MiddlewareError(415, `Unsupported charset ${String(fields.charset ?? '')} for a ${kind} body`.replace('  ', ' '), 'charset.unsupported', cause);
    case 'encoding.unsupported':
      return new MiddlewareError(415, `Unsupported Content-Encoding ${String(fields.encoding ?? '')}`.trim(), 'encoding.unsupported', cause);
    case 'request.aborted':
      return new MiddlewareError(400, 'Request aborted before the body was complete', 'request.aborted', cause);
    case 'request.size.invalid':
      return new MiddlewareError(400, 'Request body length does not match Content-Length', 'request.size.invalid', cause);
    case 'parameters.too.many':
      return new MiddlewareError(413, `Too many parameters in the ${kind} body`, 'parameters.too.many', cause);
    default: {
      const status = statusOf(error) ?? 400;
      const type: MiddlewareErrorType = status >= 500 ? 'internal' : 'entity.parse.failed';
      return new MiddlewareError(status, status >= 500 ? `Could not read the ${kind} body` : `Invalid ${kind} body: ${detail}`, type, cause);
    }
  }
}
