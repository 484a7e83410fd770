/**
 * Which request bodies an HTTP/JSON route accepts: JSON (`application/json`,
 * or a `+json` media type such as `application/merge-patch+json`). Anything
 * else is refused with 415 before a byte of the body is read, so a form or
 * `text/plain` body is never parsed as JSON. A request without a body needs
 * no content type (a GET, or a POST of an empty request).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { catalogueError, type ServiceError } from '../errors';

/** The media type without parameters, lower-cased. */
function mediaTypeOf(value: string): string {
  const semi = value.indexOf(';');
  return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
}

function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** True when the request carries (or may carry) a body: a non-zero Content-Length or a chunked body. */
function hasBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/** The 415 refusal for a body the route does not accept; undefined when the body may be read as JSON. */
export function unacceptedContentType(headers: IncomingHttpHeaders): ServiceError | undefined {
  const type = headers['content-type'];
  if (type === 'application/json') return undefined;
  if (type === undefined || type === '') {
    return hasBody(headers) ? catalogueError('UNSUPPORTED_MEDIA_TYPE', 'A request body needs Content-Type: application/json', { accepted: ['application/json'] }) : undefined;
  }
  const media = mediaTypeOf(type);
  if (isJsonMediaType(media)) return undefined;
  return catalogueError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${media.slice(0, 100)} is not accepted here: send application/json`, { accepted: ['application/json'] });
}
