/**
 * Calls over one WebSocket to the gateway's JSON envelope (docs/protocols.md):
 * every call kind, many calls at once matched by `id`, `{id, type: 'cancel'}`
 * when the caller cancels or its deadline passes, `timeout` on the request.
 *
 * The socket opens on the first call. When it drops, its calls fail with
 * UNAVAILABLE and the next call opens a new one — after a pause that grows
 * with each failed attempt (exponential backoff with jitter), so a gateway
 * that is down is not hammered; a socket that opens resets the pause.
 */
import type { Method } from './method';
import { Inbox } from './inbox';
import { RpcError, wireError } from './rpc-error';
import { guardCall, tokenFrom, type CallOptions, type TokenProvider, type Transport } from './transport';

/** Options of `createWebSocketTransport`. */
export interface WebSocketTransportOptions {
  /** `ws://host:port/ws` (or `wss://`); the gateway's `websocket.path`. */
  url: string;
  /** Called before each call; its token goes in the request's `auth: {token}`. */
  token?: TokenProvider;
  /** Pause before reconnect attempt `n` (1, 2, …) in ms; default 250 × 2^(n−1), at most 10 s, ±20 % jitter. */
  backoff?: (attempt: number) => number;
  /** How long opening the socket may take before the waiting calls fail with UNAVAILABLE; default 10 s. */
  connectTimeoutMs?: number;
  /** The WebSocket class; default the global one (browsers, Node 22+). */
  WebSocket?: new (url: string, protocols?: string | string[]) => WebSocket;
}

/** A transport over one WebSocket; `close()` ends it and fails its running calls. */
export interface WebSocketTransport extends Transport {
  close(): void;
}

/** One reply envelope from the gateway. */
interface Reply {
  id?: unknown;
  type?: unknown;
  data?: unknown;
  error?: unknown;
  traceId?: unknown;
}

const unavailable = (message: string): RpcError => new RpcError('UNAVAILABLE', message);

function defaultBackoff(attempt: number): number {
  return Math.min(10_000, 250 * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
}

/** Small outgoing buffer above which a client stream waits before sending more. */
const HIGH_WATER = 1 << 20;

/**
 * Creates the WebSocket transport.
 * @example
 * const transport = createWebSocketTransport({ url: 'ws://localhost:3000/ws', token: async () => localStorage.getItem('token') ?? undefined });
 */
export function createWebSocketTransport(options: WebSocketTransportOptions): WebSocketTransport {
  const Socket = options.WebSocket ?? globalThis.WebSocket;
  const backoff = options.backoff ?? defaultBackoff;
  const calls = new Map<string, Inbox<Reply>>();
  let socket: Promise<WebSocket> | undefined;
  let failures = 0;
  let nextId = 0;
  let closed = false;

  const dropped = (ws: WebSocket, why: string): void => {
    for (const inbox of calls.values()) inbox.fail(unavailable(why));
    calls.clear();
    ws.onclose = ws.onmessage = ws.onerror = null;
  };

  const open = (): Promise<WebSocket> =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new Socket(options.url, 'fw.json');
      const timer = setTimeout(() => {
        ws.close();
        reject(unavailable(`Could not connect to ${options.url} in time`));
      }, options.connectTimeoutMs ?? 10_000);
      ws.onopen = () => {
        clearTimeout(timer);
        failures = 0;
        resolve(ws);
      };
      ws.onerror = () => undefined;
      ws.onclose = (event) => {
        clearTimeout(timer);
        reject(unavailable(`Could not connect to ${options.url} (${event.code})`));
      };
    }).then((ws) => {
      ws.onmessage = (event) => {
        let reply: Reply;
        try {
          reply = JSON.parse(String(event.data)) as Reply;
        } catch {
          return;
        }
        calls.get(String(reply.id))?.push(reply);
      };
      ws.onclose = (event) => {
        socket = undefined;
        failures = 1;
        dropped(ws, `The connection closed (${event.code}${event.reason === '' ? '' : ` ${event.reason}`})`);
      };
      return ws;
    });

  /** The open socket, opening one (after the backoff pause) when there is none. */
  const connect = (): Promise<WebSocket> => {
    if (closed) return Promise.reject(unavailable('The transport is closed'));
    if (socket === undefined) {
      const pause = failures === 0 ? 0 : backoff(failures);
      const attempt = new Promise((r) => setTimeout(r, pause)).then(open);
      socket = attempt;
      attempt.catch(() => {
        if (socket === attempt) socket = undefined;
        failures++;
      });
    }
    return socket;
  };

  async function* call(method: Method, input: unknown, callOptions: CallOptions): AsyncGenerator<unknown> {
    const id = String(++nextId);
    const inbox = new Inbox<Reply>();
    let ws: WebSocket | undefined;
    /** The server has ended the call (reply, stream end or error): no cancel to send. */
    let ended = false;
    const disarm = guardCall(callOptions, (error) => inbox.fail(error));
    try {
      // Cancelling or a deadline also ends the wait for the socket and the token.
      const [opened, token] = await Promise.race([Promise.all([connect(), tokenFrom(options.token)]), inbox.failure()]);
      ws = opened;
      calls.set(id, inbox);
      const streams = method.kind === 'client' || method.kind === 'bidi';
      ws.send(
        JSON.stringify({
          id,
          service: method.service,
          method: method.method,
          data: streams ? {} : input,
          auth: token === undefined ? undefined : { token },
          metadata: callOptions.metadata,
          timeout: callOptions.timeoutMs,
        }),
      );
      if (streams) void sendStream(input as AsyncIterable<unknown>, id, opened, inbox);
      for (;;) {
        const reply = await inbox.take();
        ended = reply.type === 'error' || reply.type === 'stream_end' || reply.type === 'response';
        if (reply.type === 'error') throw wireError(reply.error, reply.traceId);
        if (reply.type === 'stream_end') return;
        if (reply.type === 'response' || reply.type === 'stream') yield reply.data;
        if (reply.type === 'response') return;
      }
    } finally {
      disarm();
      // Left early (break, cancel, deadline, a failing request stream): the server stops the call too.
      if (!ended && ws?.readyState === 1) ws.send(JSON.stringify({ id, type: 'cancel' }));
      if (calls.get(id) === inbox) calls.delete(id);
      inbox.fail(new RpcError('CANCELLED', 'The call is over'));
    }
  }

  /**
   * Sends a client stream's messages then its end; a failing source cancels
   * the call. When the call ends first, the source is told (`return()`) and
   * no longer awaited, so a request queue the page never ends holds nothing.
   */
  async function sendStream(source: AsyncIterable<unknown>, id: string, ws: WebSocket, inbox: Inbox<Reply>): Promise<void> {
    const iterator = source[Symbol.asyncIterator]();
    const over = inbox.failure();
    try {
      for (;;) {
        const next = await Promise.race([iterator.next(), over]);
        if (next.done === true) break;
        if (ws.readyState !== 1) return;
        ws.send(JSON.stringify({ id, type: 'stream', data: next.value }));
        while (ws.bufferedAmount > HIGH_WATER && !inbox.failed && ws.readyState === 1) await new Promise((r) => setTimeout(r, 10));
      }
      if (!inbox.failed && ws.readyState === 1) ws.send(JSON.stringify({ id, type: 'stream_end' }));
    } catch (error) {
      inbox.fail(error instanceof RpcError ? error : new RpcError('CANCELLED', `The request stream failed: ${String(error)}`));
    } finally {
      if (inbox.failed) void iterator.return?.()?.catch(() => undefined);
    }
  }

  return {
    call: (method, input, callOptions) => call(method, input, callOptions),
    close: () => {
      closed = true;
      void socket?.then((ws) => ws.close(1000), () => undefined);
      socket = undefined;
    },
  };
}
