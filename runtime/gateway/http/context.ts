/**
 * RequestContext for an HTTP call: client from the socket, headers as sent,
 * metadata with the route's path parameters and query. `signal` is created on
 * first use (most handlers never read it), aborting when the client goes away
 * before the response is finished.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthenticationInfo, ClientInfo, Protocol, RequestContext, TracingInfo } from '../../core/request-context';

class HttpRequestContext implements RequestContext {
  readonly protocol: Protocol = 'http';
  readonly client: ClientInfo;
  readonly headers: Record<string, string>;
  readonly metadata: Record<string, unknown>;
  authentication: AuthenticationInfo | undefined = undefined;
  readonly tracing: TracingInfo;
  readonly #res: ServerResponse;
  #controller: AbortController | undefined = undefined;

  constructor(req: IncomingMessage, res: ServerResponse, metadata: Record<string, unknown>, tracing: TracingInfo) {
    const socket = req.socket;
    const address = socket.remoteAddress ?? '';
    const port = socket.remotePort ?? 0;
    this.client = { id: `${address}:${port}`, address, port, userAgent: req.headers['user-agent'], version: req.httpVersion };
    // Node keeps only set-cookie as an array; handlers see the header object as sent.
    this.headers = req.headers as Record<string, string>;
    this.metadata = metadata;
    this.tracing = tracing;
    this.#res = res;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const res = this.#res;
      if (res.writableFinished) return controller.signal;
      if (res.destroyed) controller.abort();
      else res.once('close', () => {
        if (!res.writableFinished) controller.abort();
      });
    }
    return this.#controller.signal;
  }
}

/** Builds the RequestContext of one HTTP call. */
export function httpContext(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: Record<string, string>,
  params: Record<string, string>,
  tracing: TracingInfo,
): RequestContext {
  return new HttpRequestContext(req, res, { method: req.method ?? 'GET', path, query, params }, tracing);
}
