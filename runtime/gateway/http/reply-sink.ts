/**
 * How an HTTP/JSON call answers (its ReplySink): one JSON reply, or a server
 * stream as NDJSON (`application/x-ndjson`, one `{"data": item}` line per
 * message and the error body as a final line on failure; on `google.api.http`
 * routes grpc-gateway's `{"result": item}` lines and a final
 * `{"error": <error body>}` line) or Server-Sent Events
 * when the client accepts `text/event-stream` (`data:` events, then
 * `event: end` or `event: error`). The handler's headers go out as HTTP
 * headers and its trailers as `grpc-trailer-<name>` (context.ts). Stream
 * writes wait for `drain`, so a slow reader slows the producer instead of
 * filling memory. Messages arrive as JSON text: the route's mapping
 * (`response_body`, `transformResponse`) is the transport's.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../../core/request-context';
import type { ServiceError } from '../errors';
import type { ReplySink } from '../transport-adapter';
import { writeCallMetadata } from './context';

/** What every reply of the transport shares. */
export interface HttpReplyDeps {
  /** The trace-id response header (monitoring's correlation header). */
  readonly traceHeader: string;
  /** True while close() drains: every answer then ends its connection. */
  draining(): boolean;
  /** The user's transformError rendering, else the default: for an error reply and for a stream's error line alike. */
  render(error: ServiceError): { status?: number; body?: unknown };
}

const RESOLVED = Promise.resolve();

/** True when the client asked for Server-Sent Events rather than NDJSON. */
export function isSse(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').includes('text/event-stream');
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    signal.addEventListener('abort', done);
  });
}

/** One HTTP call's replies; `traceId` goes out on every reply (undefined before the request was read). */
export class HttpReplySink implements ReplySink<string> {
  readonly #res: ServerResponse;
  readonly #deps: HttpReplyDeps;
  readonly #traceId: string | undefined;
  readonly #context: RequestContext | undefined;
  /** Set once a server stream has begun: SSE or NDJSON (grpc-gateway's lines or fw's), and the signal that ends waiting for drain. */
  #stream: { sse: boolean; grpcGateway: boolean; signal: AbortSignal } | undefined = undefined;

  constructor(res: ServerResponse, deps: HttpReplyDeps, traceId: string | undefined, context?: RequestContext) {
    this.#res = res;
    this.#deps = deps;
    this.#traceId = traceId;
    this.#context = context;
  }

  /** The unary reply: `json` is the whole body. */
  message(json: string): void {
    const res = this.#res;
    if (this.#context !== undefined) writeCallMetadata(res, this.#context);
    // One writeHead with a flat header list: cheaper than three setHeader calls.
    const head = ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(json)), this.#deps.traceHeader, this.#traceId ?? ''];
    if (this.#deps.draining()) head.push('Connection', 'close');
    res.writeHead(200, head);
    res.end(json);
  }

  /** Begins a server stream now (status and headers leave before the first item); SSE when `sse`, grpc-gateway's NDJSON lines when `grpcGateway`. */
  stream(sse: boolean, signal: AbortSignal, grpcGateway = false): void {
    const res = this.#res;
    this.#stream = { sse, grpcGateway, signal };
    if (this.#traceId !== undefined) res.setHeader(this.#deps.traceHeader, this.#traceId);
    if (this.#context !== undefined) writeCallMetadata(res, this.#context);
    res.statusCode = 200;
    res.setHeader('Content-Type', sse ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.flushHeaders();
  }

  /** True once the client is gone or the reply is complete: the stream stops. */
  get done(): boolean {
    const res = this.#res;
    return res.destroyed || res.writableEnded || this.#stream?.signal.aborted === true;
  }

  /** One stream item's JSON text; the promise resolves once the client reads again. */
  item(json: string): Promise<void> {
    const stream = this.#stream;
    if (stream === undefined || this.done) return RESOLVED;
    const ok = this.#res.write(stream.sse ? `data: ${json}\n\n` : stream.grpcGateway ? `{"result":${json}}\n` : `{"data":${json}}\n`);
    return ok ? RESOLVED : drained(this.#res, stream.signal);
  }

  end(): void {
    const res = this.#res;
    if (res.writableEnded) return;
    if (this.#stream?.sse === true) res.write('event: end\ndata: {}\n\n');
    res.end();
  }

  /**
   * The call failed: its error reply (status and `{error, message, details}`),
   * or, once a stream has begun, its error line (NDJSON) or `error` event
   * (SSE). A unary reply that had begun is cut.
   */
  fail(error: ServiceError): void {
    const res = this.#res;
    if (res.writableEnded) return;
    const stream = this.#stream;
    if (stream !== undefined || res.headersSent) {
      if (stream === undefined) res.destroy();
      else if (!res.destroyed) {
        const json = JSON.stringify(this.#deps.render(error).body ?? {});
        res.end(stream.sse ? `event: error\ndata: ${json}\n\n` : stream.grpcGateway ? `{"error":${json}}\n` : `${json}\n`);
      }
      return;
    }
    if (this.#context !== undefined) writeCallMetadata(res, this.#context);
    const out = this.#deps.render(error);
    const json = JSON.stringify(out.body ?? {});
    res.statusCode = out.status ?? 500;
    if (this.#traceId !== undefined) res.setHeader(this.#deps.traceHeader, this.#traceId);
    if (error.code === 'RATE_LIMIT_EXCEEDED') {
      const wait = (error.details as { retryAfterMs?: number } | undefined)?.retryAfterMs ?? 1000;
      res.setHeader('Retry-After', String(Math.ceil(wait / 1000)));
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(json));
    if (this.#deps.draining()) res.setHeader('Connection', 'close');
    res.end(json);
  }
}
