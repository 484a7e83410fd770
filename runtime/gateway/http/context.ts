/**
 * RequestContext for an HTTP/JSON call (http-exchange.ts): headers as sent,
 * metadata with the HTTP method, path, query and the route's path parameters.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import { HttpCallContext } from '../http-exchange';

/** Builds the RequestContext of one HTTP call; `headers` is `req.headers`, already read by the caller. */
export function httpContext(
  req: IncomingMessage,
  headers: IncomingHttpHeaders,
  res: ServerResponse,
  path: string,
  query: Record<string, string>,
  params: Record<string, string>,
  tracing: TracingInfo,
): RequestContext {
  return new HttpCallContext('http', req, headers, res, { method: req.method ?? 'GET', path, query, params }, tracing);
}
