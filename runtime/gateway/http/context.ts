/**
 * RequestContext for an HTTP call: client from the socket, headers as sent,
 * metadata with the route's path parameters and query. `client` and `signal`
 * are created on first use (most handlers never read them); `signal` aborts
 * when the client goes away before the response is finished.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthenticationInfo, ClientInfo, Protocol, RequestContext, TracingInfo } from '../../core/request-context';

class HttpRequestContext implements RequestContext {
  readonly protocol: Protocol = 'http';
  readonly headers: Record<string, string>;
  readonly metadata: Record<string, unknown>;
  authentication: AuthenticationInfo | undefined = undefined;
  readonly tracing: TracingInfo;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  /** Read now: after a disconnect the socket no longer knows its peer. */
  readonly #address: string;
  readonly #port: number;
  #client: ClientInfo | undefined = undefined;
  #controller: AbortController | undefined = undefined;

  constructor(req: IncomingMessage, res: ServerResponse, metadata: Record<string, unknown>, tracing: TracingInfo) {
    // Node keeps only set-cookie as an array; handlers see the header object as sent.
    this.headers = req.headers as Record<string, string>;
    this.metadata = metadata;
    this.tracing = tracing;
    this.#req = req;
    this.#res = res;
    const socket = req.socket;
    this.#address = socket.remoteAddress ?? '';
    this.#port = socket.remotePort ?? 0;
  }

  /** Built on first read (most handlers never look): the same object on every read. */
  get client(): ClientInfo {
    if (this.#client === undefined) {
      const req = this.#req;
      const address = this.#address;
      const port = this.#port;
      this.#client = { id: `${address}:${port}`, address, port, userAgent: req.headers['user-agent'], version: req.httpVersion };
    }
    return this.#client;
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
