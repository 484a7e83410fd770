/**
 * RequestContext for a Connect or gRPC-Web call. Connect calls report
 * protocol `http` (they are plain HTTP requests), gRPC-Web calls `grpc` (gRPC
 * semantics carried over HTTP/1.1), so metrics, auth extraction and logs
 * group them with their kin. Headers are the request's, as on HTTP/JSON;
 * `metadata` names the HTTP method, path, wire protocol and codec.
 * `signal` is built on first use unless a deadline needs it now; it aborts
 * when the client goes away, the deadline passes, or the reply is abandoned.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthenticationInfo, ClientInfo, Protocol, RequestContext, TracingInfo } from '../../core/request-context';

/** Which wire protocol carried the call. */
export type WebRpcProtocol = 'connect' | 'grpc-web';

/** The context of one Connect/gRPC-Web call; `abort()` is the transport's handle on its signal. */
export class WebRpcContext implements RequestContext {
  readonly protocol: Protocol;
  readonly headers: Record<string, string>;
  readonly metadata: Record<string, unknown>;
  authentication: AuthenticationInfo | undefined = undefined;
  readonly tracing: TracingInfo;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #address: string;
  #client: ClientInfo | undefined = undefined;
  #controller: AbortController | undefined = undefined;

  constructor(req: IncomingMessage, res: ServerResponse, wire: WebRpcProtocol, metadata: Record<string, unknown>, tracing: TracingInfo) {
    this.protocol = wire === 'connect' ? 'http' : 'grpc';
    // Node keeps only set-cookie as an array; handlers see the header object as sent (as on HTTP/JSON).
    this.headers = req.headers as Record<string, string>;
    this.metadata = metadata;
    this.tracing = tracing;
    this.#req = req;
    this.#res = res;
    this.#address = req.socket.remoteAddress ?? '';
  }

  get client(): ClientInfo {
    if (this.#client === undefined) {
      const port = this.#req.socket.remotePort ?? 0;
      this.#client = { id: `${this.#address}:${port}`, address: this.#address, port, userAgent: this.#req.headers['user-agent'], version: this.#req.httpVersion };
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

  /** Aborts the call's signal (deadline passed, or the reply was abandoned). */
  abort(reason?: unknown): void {
    const signal = this.signal;
    if (!signal.aborted) this.#controller?.abort(reason);
  }
}
