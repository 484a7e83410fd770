/**
 * The RequestContext of a call carried by one HTTP request — HTTP/JSON,
 * Connect and gRPC-Web build theirs here, so they behave the same: headers
 * as sent, `client` from the socket and `signal` created on first use (most
 * handlers never read them), the signal aborting when the client goes away
 * before the reply finished, or when the transport calls `abort()` (a
 * passed deadline).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { CollectedCallMetadata, incomingFromHeaders } from '../core/call-metadata';
import type { AuthenticationInfo, ClientInfo, Protocol, RequestContext, TracingInfo } from '../core/request-context';

/** The HTTP request under a call, as span attributes describe it. */
export interface HttpRequestFacts {
  readonly method: string;
  /** The request target's path, without the query. */
  readonly path: string;
  readonly scheme: 'http' | 'https';
  /** `1.1`, `2`. */
  readonly version: string;
  /** The `Host` header (or HTTP/2 `:authority`), as sent. */
  readonly host: string | undefined;
}

/** One HTTP-carried call's context. */
export class HttpCallContext implements RequestContext {
  readonly protocol: Protocol;
  readonly headers: Record<string, string>;
  readonly metadata: Record<string, unknown>;
  authentication: AuthenticationInfo | undefined = undefined;
  readonly tracing: TracingInfo;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  /** Read now: after a disconnect the socket no longer knows its peer. */
  readonly #address: string;
  #client: ClientInfo | undefined = undefined;
  #controller: AbortController | undefined = undefined;
  #call: CollectedCallMetadata | undefined = undefined;

  /** `headers` is `req.headers`, already read by the caller (a getter with a megamorphic load inside). */
  constructor(protocol: Protocol, req: IncomingMessage, headers: IncomingHttpHeaders, res: ServerResponse, metadata: Record<string, unknown>, tracing: TracingInfo) {
    this.protocol = protocol;
    // Node keeps only set-cookie as an array; handlers see the header object as sent.
    this.headers = headers as Record<string, string>;
    this.metadata = metadata;
    this.tracing = tracing;
    this.#req = req;
    this.#res = res;
    // Reading remoteAddress makes net.Socket cache its peer (address and port), so the port
    // can be read on first use of `client`: one peer lookup per request instead of two.
    this.#address = req.socket.remoteAddress ?? '';
  }

  /** Built on first read: the same object on every read. */
  get client(): ClientInfo {
    if (this.#client === undefined) {
      const req = this.#req;
      const port = req.socket.remotePort ?? 0;
      this.#client = { id: `${this.#address}:${port}`, address: this.#address, port, userAgent: req.headers['user-agent'], version: req.httpVersion };
    }
    return this.#client;
  }

  /** Built on first read; the transport writes what the handler set as response headers and trailers. */
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
      // writableEnded, not writableFinished: node:http2's compat response reports a reset stream as finished.
      if (res.writableEnded) return controller.signal;
      if (res.destroyed === true || (res as { stream?: { destroyed?: boolean } }).stream?.destroyed === true) controller.abort();
      else res.once('close', () => {
        if (!res.writableEnded) controller.abort();
      });
    }
    return this.#controller.signal;
  }

  /** The HTTP request carrying the call (read by tracing, for its HTTP attributes). */
  get httpRequest(): HttpRequestFacts {
    const req = this.#req;
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const scheme = (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
    const host = req.headers.host ?? (req.headers as Record<string, string | undefined>)[':authority'];
    return { method: req.method ?? 'GET', path: q === -1 ? target : target.slice(0, q), scheme, version: req.httpVersion, host };
  }

  /** Aborts the signal now (the transport's deadline passed). */
  abort(reason?: unknown): void {
    const signal = this.signal;
    if (!signal.aborted) this.#controller?.abort(reason);
  }
}
