/**
 * `app.createFetchHandler()` (spec 4.1): a standard `Request` in, a standard
 * `Response` out, served by the application's own `http.Server` over an
 * in-memory socket pair — the same parser, objects and pipeline as the network.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { memorySocketPair } from './memory-socket';

/** Options of `createFetchHandler()`. */
export interface FetchHandlerOptions {
  /** The client address requests appear to come from (`req.ip`). Default `127.0.0.1`. */
  remoteAddress?: string;
}

/** A standard fetch-style handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

function toResponse(incoming: IncomingMessage, method: string): Response {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const status = incoming.statusCode ?? 500;
  const noBody = method === 'HEAD' || NULL_BODY_STATUS.has(status);
  if (noBody) incoming.resume();
  const body = noBody ? null : (Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: incoming.statusMessage ?? '', headers });
}

/** Builds the fetch handler for `server` (see the module comment). */
export function createFetchHandler(getServer: () => EventEmitter, options: FetchHandlerOptions = {}): FetchHandler {
  const remoteAddress = options.remoteAddress ?? '127.0.0.1';
  return async function fetchHandler(input: Request): Promise<Response> {
    if (!(input instanceof Request)) throw new TypeError('createFetchHandler(): expected a standard Request');
    const url = new URL(input.url);
    const body = input.body === null ? null : Buffer.from(await input.arrayBuffer());
    const headers: Record<string, string | string[]> = {};
    input.headers.forEach((value, name) => {
      headers[name] = name === 'set-cookie' ? input.headers.getSetCookie() : value;
    });
    if (headers.host === undefined) headers.host = url.host;
    // One request per in-memory connection: the server closes it after the response.
    headers.connection = 'close';
    const [serverSide, clientSide] = memorySocketPair({ remoteAddress, remotePort: 0, encrypted: url.protocol === 'https:' });
    const server = getServer();
    return new Promise<Response>((resolve, reject) => {
      const outgoing = httpRequest({
        method: input.method,
        path: url.pathname + url.search,
        headers,
        createConnection: () => clientSide,
        signal: input.signal,
      });
      outgoing.on('response', (incoming) => {
        incoming.on('end', () => clientSide.destroy());
        resolve(toResponse(incoming, input.method));
      });
      outgoing.on('error', (error) => {
        clientSide.destroy();
        reject(error);
      });
      server.emit('connection', serverSide);
      outgoing.end(body ?? undefined);
    });
  };
}
