/**
 * Unary and server-streaming calls over plain HTTP with `fetch`: the
 * gateway's HTTP/JSON binding (`POST {basePath}/<Service>/<method>`, reply
 * `{"data": …}`, errors `{"error": code, "message", "details"}`) and, for
 * server streams, its NDJSON body (one `{"data": …}` line per message, a
 * final error line on failure). Client and bidi streams need the WebSocket
 * transport. Cancelling aborts the request; the deadline also travels as
 * `grpc-timeout`, which bounds the call where the gateway forwards it.
 */
import type { Method } from './method';
import { RpcError } from './rpc-error';
import { guardCall, tokenFrom, type CallOptions, type TokenProvider, type Transport } from './transport';

/** Options of `createFetchTransport`. */
export interface FetchTransportOptions {
  /** Origin of the gateway (`http://localhost:3000`); default the page's own (relative URLs). */
  baseUrl?: string;
  /** The gateway's HTTP base path; default `/api`. */
  basePath?: string;
  /** Called before each call; its token goes in `Authorization: Bearer …`. */
  token?: TokenProvider;
  /** The fetch function; default the global one. */
  fetch?: typeof globalThis.fetch;
}

/** The RpcError of an HTTP/JSON error body (or of a reply that is not one). */
function httpError(body: unknown, status: number): RpcError {
  const b = (body !== null && typeof body === 'object' ? body : {}) as { error?: unknown; message?: unknown; details?: unknown };
  if (typeof b.error === 'string') return new RpcError(b.error, typeof b.message === 'string' ? b.message : b.error, b.details);
  return new RpcError(status === 503 || status === 502 || status === 504 ? 'UNAVAILABLE' : 'INTERNAL', `HTTP ${status} without an error body`);
}

/** Reads one JSON line; a line that is not JSON fails the call. */
function parseLine(line: string): { data?: unknown; error?: unknown } {
  try {
    return JSON.parse(line) as { data?: unknown; error?: unknown };
  } catch {
    throw new RpcError('INTERNAL', 'The server sent a stream line that is not JSON');
  }
}

/**
 * Creates the fetch transport (unary and server streaming only).
 * @example
 * const transport = createFetchTransport({ baseUrl: 'http://localhost:3000' });
 */
export function createFetchTransport(options: FetchTransportOptions = {}): Transport {
  const base = `${options.baseUrl ?? ''}${options.basePath ?? '/api'}`;
  async function* call(method: Method, input: unknown, callOptions: CallOptions): AsyncGenerator<unknown> {
    if (method.kind === 'client' || method.kind === 'bidi') {
      throw new RpcError('UNIMPLEMENTED', `${method.service}.${method.method} streams requests: use the WebSocket transport`);
    }
    const controller = new AbortController();
    let failure: RpcError | undefined;
    const disarm = guardCall(callOptions, (error) => {
      failure = error;
      controller.abort();
    });
    try {
      const token = await tokenFrom(options.token);
      const headers: Record<string, string> = { ...callOptions.metadata, 'content-type': 'application/json' };
      if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
      if (callOptions.timeoutMs !== undefined) headers['grpc-timeout'] = `${Math.ceil(callOptions.timeoutMs)}m`;
      if (method.kind === 'server') headers['accept'] = 'application/x-ndjson';
      const response = await (options.fetch ?? globalThis.fetch)(`${base}/${method.service}/${method.method}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(input),
        signal: controller.signal,
      });
      if (method.kind === 'unary' || !response.ok || response.body === null) {
        const body: unknown = await response.json().catch(() => undefined);
        if (!response.ok) throw httpError(body, response.status);
        yield (body as { data?: unknown } | undefined)?.data;
        return;
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = '';
      try {
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          buffered += chunk.value;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (line === '') continue;
            const item = parseLine(line);
            if ('error' in item) throw httpError(item, 500);
            yield item.data;
          }
        }
      } finally {
        // Stopping early (break, cancel) closes the response body, which ends the call on the server.
        void reader.cancel().catch(() => undefined);
      }
    } catch (error) {
      if (failure !== undefined) throw failure;
      if (error instanceof RpcError) throw error;
      throw new RpcError('UNAVAILABLE', `The request failed: ${String(error)}`);
    } finally {
      disarm();
      controller.abort();
    }
  }
  return { call };
}
