/**
 * How the HTTP-side adapters send a request: fetch (HTTP/1.1, as browsers
 * talk to a cleartext port) or one node:http2 session (h2c, as Connect-ES's
 * connect-node and grpc-web proxies may). Both give a WHATWG Response, so an
 * adapter reads its protocol the same way over either.
 */
import http2 from 'node:http2';
import { sleep, TIMEOUT } from './adapter-types';

export interface HttpClient {
  post(url: string, headers: Record<string, string>, body: string | Buffer): Promise<Response>;
  /**
   * Sends the request and cancels it after `afterMs`: the server sees its
   * connection or stream go away. `open` leaves the request body unfinished
   * (a client stream whose end never comes).
   */
  cancelled(url: string, headers: Record<string, string>, body: string | Buffer, afterMs: number, open: boolean): Promise<void>;
  close(): void;
}

const bytesOf = (body: string | Buffer): Uint8Array<ArrayBuffer> => new Uint8Array(typeof body === 'string' ? Buffer.from(body) : body);

/** fetch over HTTP/1.1. */
export const FETCH: HttpClient = {
  post: (url, headers, body) => fetch(url, { method: 'POST', headers, body: bytesOf(body), signal: AbortSignal.timeout(TIMEOUT) }),
  async cancelled(url, headers, body, afterMs, open) {
    const controller = new AbortController();
    const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers, signal: controller.signal };
    if (open) {
      init.body = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(bytesOf(body)) });
      init.duplex = 'half';
    } else init.body = bytesOf(body);
    const request = fetch(url, init).then((res) => res.arrayBuffer()).catch(() => undefined);
    await sleep(afterMs);
    controller.abort();
    await request;
  },
  close: () => undefined,
};

/** One h2c session to `origin` for every request (prior knowledge, no upgrade). */
export function h2cClient(origin: string): HttpClient {
  const session = http2.connect(origin);
  session.on('error', () => undefined);
  const request = (url: string, headers: Record<string, string>): http2.ClientHttp2Stream => {
    const { pathname, search } = new URL(url);
    const stream = session.request({ ':method': 'POST', ':path': pathname + search, ...headers });
    stream.setTimeout(TIMEOUT, () => stream.close(http2.constants.NGHTTP2_CANCEL));
    return stream;
  };
  return {
    post: (url, headers, body) =>
      new Promise<Response>((resolve, reject) => {
        const stream = request(url, headers);
        const chunks: Buffer[] = [];
        let head: http2.IncomingHttpHeaders = {};
        stream.on('response', (h) => {
          head = h;
        });
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', reject);
        stream.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(head)) if (!k.startsWith(':') && v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : String(v));
          const status = Number(head[':status'] ?? 0);
          resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }));
        });
        stream.end(bytesOf(body));
      }),
    async cancelled(url, headers, body, afterMs, open) {
      const stream = request(url, headers);
      stream.on('error', () => undefined);
      stream.on('data', () => undefined);
      if (open) stream.write(bytesOf(body));
      else stream.end(bytesOf(body));
      await sleep(afterMs);
      stream.close(http2.constants.NGHTTP2_CANCEL);
    },
    close: () => session.destroy(),
  };
}
