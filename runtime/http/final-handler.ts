/**
 * What happens when no handler ends the response (spec 7.2): an error becomes
 * `{error}` with its `statusCode` (or a generic 500, the real error logged and
 * never sent); a known path with the wrong method becomes 405 with `Allow`;
 * anything else 404 `{error, path, method}`.
 */
import { STATUS_CODES } from 'node:http';
import type { FwRequest } from './request';
import type { FwResponse } from './response';

/** Where unexpected errors are reported; `console` unless the application sets another. */
export interface ErrorLogger {
  error(message: string, error: unknown): void;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const BODY_HEADERS = ['content-disposition', 'content-length', 'content-range', 'content-encoding', 'etag', 'last-modified', 'accept-ranges'];

/** The HTTP status an error asks for (`statusCode`, or Express's `status`), if it is a valid 4xx/5xx. */
export function errorStatus(error: unknown): number | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const e = error as { statusCode?: unknown; status?: unknown };
  const status = typeof e.statusCode === 'number' ? e.statusCode : typeof e.status === 'number' ? e.status : undefined;
  return status !== undefined && Number.isInteger(status) && status >= 400 && status <= 599 ? status : undefined;
}

function sendJson(res: FwResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_TYPE);
  res.end(JSON.stringify(body));
}

/** Responds for an error no error handler dealt with. */
export function sendError(req: FwRequest, res: FwResponse, error: unknown, logger: ErrorLogger): void {
  const status = errorStatus(error);
  // A 5xx that declares itself safe to show (`expose`, e.g. a store outage, already reported once) is an expected refusal, not logged per request.
  const expected = status !== undefined && (error as { expose?: unknown }).expose === true;
  if ((status === undefined || status >= 500) && !expected) logger.error(`${req.method} ${req.originalUrl} failed`, error);
  if (res.headersSent) {
    // Too late for a status: cut the response so the client sees it failed.
    res.destroy();
    return;
  }
  // Keep cross-cutting headers (CORS, security); drop those that described the failed body.
  for (const name of BODY_HEADERS) res.removeHeader(name);
  if (status === undefined) {
    sendJson(res, 500, { error: 'Internal Server Error' });
    return;
  }
  const headers = (error as { headers?: unknown }).headers;
  if (headers !== null && typeof headers === 'object') {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if (typeof value === 'string' || typeof value === 'number') res.setHeader(name, value);
    }
  }
  const message = error instanceof Error && error.message !== '' ? error.message : STATUS_CODES[status] ?? 'Error';
  sendJson(res, status, { error: message });
}

/** Responds when no route matched: 204/405 with `Allow` for a known path and another method, else 404. */
export function sendNotFound(req: FwRequest, res: FwResponse, allowed: string[]): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const path = req.originalUrl.split('?')[0] || '/';
  // The method has routes here that all passed the request on (`next()`): not found, as in Express, not 405.
  const methodServed = allowed.includes(req.method) || (req.method === 'HEAD' && allowed.includes('GET'));
  if (allowed.length > 0 && !methodServed) {
    res.setHeader('Allow', allowed.join(', '));
    if (req.method === 'OPTIONS') {
      res.statusCode = 204;
      res.end();
      return;
    }
    sendJson(res, 405, { error: `Method ${req.method} not allowed for ${path}` });
    return;
  }
  sendJson(res, 404, { error: 'Not Found', path, method: req.method });
}
