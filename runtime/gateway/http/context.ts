/**
 * RequestContext for an HTTP/JSON call: the shared HTTP-carried context
 * (../http-exchange.ts, also Connect's and gRPC-Web's) with metadata holding
 * the route's path parameters and query.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { metadataText } from '../../core/call-metadata';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import { HttpCallContext } from '../http-exchange';
import type { CallDeadline } from '../../rpc/deadline';

/**
 * Writes what the handler set through `context.call` as HTTP headers: response
 * headers under their own names, trailers as `grpc-trailer-<name>` (the
 * grpc-gateway convention; the JSON reply is complete before it is sent, so
 * trailers travel as headers). `-bin` values are base64.
 */
export function writeCallMetadata(res: ServerResponse, context: RequestContext): void {
  const call = context instanceof HttpCallContext ? context.callInUse : undefined;
  if (call === undefined || res.headersSent) return;
  for (const [name, values] of call.headers ?? []) res.setHeader(name, values.map(metadataText));
  for (const [name, values] of call.trailers ?? []) res.setHeader(`grpc-trailer-${name}`, values.map(metadataText));
}

/**
 * Builds the RequestContext of one HTTP call; `headers` is `req.headers`,
 * already read by the caller. The call's deadline (from `grpc-timeout`, read
 * by rpc/deadline.ts) becomes `metadata.deadline`, which bounds the call when
 * it is forwarded to a discovered instance; the transport also fails the call
 * once it passes.
 */
export function httpContext(
  req: IncomingMessage,
  headers: IncomingHttpHeaders,
  res: ServerResponse,
  path: string,
  query: Record<string, string>,
  params: Record<string, string>,
  tracing: TracingInfo,
  deadline: CallDeadline | undefined,
): HttpCallContext {
  const metadata = deadline === undefined ? { method: req.method ?? 'GET', path, query, params } : { method: req.method ?? 'GET', path, query, params, deadline: deadline.at };
  return new HttpCallContext('http', req, headers, res, metadata, tracing);
}
