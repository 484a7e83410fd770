/**
 * RequestContext for an HTTP call: client from the socket, headers as sent,
 * metadata with the route's path parameters and query.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import { createContext } from '../gateway-core';

export function httpContext(
  req: IncomingMessage,
  path: string,
  query: Record<string, string>,
  params: Record<string, string>,
  tracing: TracingInfo,
  signal: AbortSignal,
): RequestContext {
  const socket = req.socket;
  const address = socket.remoteAddress ?? '';
  const port = socket.remotePort ?? 0;
  const ua = req.headers['user-agent'];
  return createContext(
    'http',
    { id: `${address}:${port}`, address, port, userAgent: ua, version: req.httpVersion },
    // Node keeps only set-cookie as an array; handlers see the header object as sent.
    req.headers as Record<string, string>,
    { method: req.method ?? 'GET', path, query, params },
    tracing,
    signal,
  );
}
