/**
 * RequestContext for an HTTP call: client from the socket, headers as sent,
 * metadata with the route's path parameters and query. `client` and `signal`
 * are created on first use (most handlers never read them); `signal` aborts
 * when the client goes away before the response is finished.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { CollectedCallMetadata, incomingFromHeaders, metadataText } from '../../core/call-metadata';
import type { AuthenticationInfo, ClientInfo, Protocol, RequestContext, TracingInfo } from '../../core/request-context';
import { parseGrpcTimeout } from '../grpc-timeout';

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
  readonly #socket: Socket;
  #client: ClientInfo | undefined = undefined;
  #controller: AbortController | undefined = undefined;
  #call: CollectedCallMetadata | undefined = undefined;

  constructor(req: IncomingMessage, headers: IncomingHttpHeaders, res: ServerResponse, metadata: Record<string, unknown>, tracing: TracingInfo) {
    // Node keeps only set-cookie as an array; handlers see the header object as sent.
    this.headers = headers as Record<string, string>;
    this.metadata = metadata;
    this.tracing = tracing;
    this.#req = req;
    this.#res = res;
    // Reading remoteAddress makes net.Socket cache its peer (address and port), so the port
    // can be read on first use of `client`: one peer lookup per request instead of two.
    this.#socket = req.socket;
    this.#address = this.#socket.remoteAddress ?? '';
  }

  /** Built on first read (most handlers never look): the same object on every read. */
  get client(): ClientInfo {
    if (this.#client === undefined) {
      const req = this.#req;
      const address = this.#address;
      const port = this.#socket.remotePort ?? 0;
      this.#client = { id: `${address}:${port}`, address, port, userAgent: req.headers['user-agent'], version: req.httpVersion };
    }
    return this.#client;
  }

  /** Built on first read; the transport writes what the handler set as response headers. */
  get call(): CollectedCallMetadata {
    if (this.#call === undefined) {
      const headers = this.headers;
      this.#call = new CollectedCallMetadata(() => incomingFromHeaders(headers));
    }
    return this.#call;
  }

  /** The call controls if a handler touched them, without creating them. */
  get callInUse(): CollectedCallMetadata | undefined {
    return this.#call;
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

/**
 * Writes what the handler set through `context.call` as HTTP headers: response
 * headers under their own names, trailers as `grpc-trailer-<name>` (the
 * grpc-gateway convention; the JSON reply is complete before it is sent, so
 * trailers travel as headers). `-bin` values are base64.
 */
export function writeCallMetadata(res: ServerResponse, context: RequestContext): void {
  const call = context instanceof HttpRequestContext ? context.callInUse : undefined;
  if (call === undefined || res.headersSent) return;
  for (const [name, values] of call.headers ?? []) res.setHeader(name, values.map(metadataText));
  for (const [name, values] of call.trailers ?? []) res.setHeader(`grpc-trailer-${name}`, values.map(metadataText));
}

/**
 * Builds the RequestContext of one HTTP call; `headers` is `req.headers`,
 * already read by the caller. A `grpc-timeout` header (as grpc-gateway takes
 * it) becomes `metadata.deadline`, which bounds the call when it is forwarded
 * to a discovered instance.
 */
export function httpContext(
  req: IncomingMessage,
  headers: IncomingHttpHeaders,
  res: ServerResponse,
  path: string,
  query: Record<string, string>,
  params: Record<string, string>,
  tracing: TracingInfo,
): RequestContext {
  const timeout = headers['grpc-timeout'];
  const ms = typeof timeout === 'string' ? parseGrpcTimeout(timeout) : undefined;
  const metadata = ms === undefined ? { method: req.method ?? 'GET', path, query, params } : { method: req.method ?? 'GET', path, query, params, deadline: Date.now() + ms };
  return new HttpRequestContext(req, headers, res, metadata, tracing);
}
