/**
 * How a WebSocket connection answers: `response`, `stream`, `stream_end` and
 * `error` envelopes in the connection's format (json text, msgpack binary)
 * or, for `binary`, the frames of wire/frame-replies.ts. Writes are corked
 * per tick; a peer that stops reading pauses the connection's reading past
 * 1 MiB buffered and is dropped past `maxBufferedBytes`; stream producers
 * wait meanwhile. Each call's ReplySink is bound over these replies by the
 * session (session/envelope-call.ts).
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { ServiceError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import { drainOrClose } from '../drain-or-close';
import type { BufferedOutput, OutputBudget } from '../output-budget';
import type { EnvelopeReplies } from '../session/envelope-replies';
import { frameReplies } from '../wire/frame-replies';
import { encodeEnvelope, type WebSocketMessageFormat } from './codec';

/** Builds the reply for a unary result instead of `{id, type: 'response', method, data, timestamp}`. */
export type FormatResponse = (result: unknown, messageId: unknown, method: string) => Record<string, unknown>;

const HIGH_WATER = 1 << 20;

/** The connection and its bounds. */
export interface WebSocketOutput {
  readonly ws: WebSocket;
  readonly socket: Duplex;
  readonly connectionId: string;
  readonly maxBuffered: number;
  readonly budget: OutputBudget | undefined;
  readonly output: BufferedOutput;
}

/** The replies of one connection in `format`. */
export function websocketReplies(core: GatewayCore, format: WebSocketMessageFormat, to: WebSocketOutput, formatResponse: FormatResponse | undefined): EnvelopeReplies {
  const { ws, socket, connectionId, maxBuffered, budget, output } = to;
  let corked = false;
  const uncork = (): void => {
    corked = false;
    socket.uncork();
  };
  const send = (data: string | Uint8Array): void => {
    if (ws.readyState !== ws.OPEN) return;
    // Replies finishing in the same tick leave in one write.
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    if (core.observed) core.emit({ type: 'message', protocol: 'websocket', direction: 'out', bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength, connectionId });
    ws.send(data);
    // A peer that stops reading: stop reading its requests, and drop it past the hard limit.
    const buffered = ws.bufferedAmount;
    budget?.note(output, buffered);
    if (buffered > maxBuffered) ws.terminate();
    else if (buffered > HIGH_WATER && !ws.isPaused) {
      ws.pause();
      socket.once('drain', () => ws.resume());
    }
  };
  const writable = (): Promise<void> | undefined => {
    if (ws.bufferedAmount <= HIGH_WATER || ws.readyState !== ws.OPEN) return undefined;
    return drainOrClose(socket);
  };
  return format === 'binary' ? frameReplies(core, 'websocket', send, writable) : envelopeReplies(core, format, send, writable, formatResponse);
}

function envelopeReplies(
  core: GatewayCore,
  format: 'json' | 'msgpack',
  send: (data: string | Uint8Array) => void,
  writable: () => Promise<void> | undefined,
  formatResponse: FormatResponse | undefined,
): EnvelopeReplies {
  const out = (m: Record<string, unknown>): void => send(encodeEnvelope(format, m));
  return {
    response: (id, method, data, traceId, meta) =>
      out(formatResponse !== undefined ? { ...formatResponse(data, id, method), traceId, ...meta } : { id, type: 'response', method, data, timestamp: Date.now(), traceId, ...meta }),
    item: (id, data, traceId, meta) => out({ id, type: 'stream', data, traceId, ...meta }),
    end: (id, traceId, meta) => out({ id, type: 'stream_end', traceId, ...meta }),
    error: (id, error: ServiceError, traceId, meta) => {
      const custom = core.renderError(error, 'websocket');
      if (custom !== undefined && custom !== null && typeof custom === 'object') out({ id, ...(custom as Record<string, unknown>), traceId, ...meta });
      else out({ id, type: 'error', error: { code: error.code, message: error.message, details: error.details }, traceId, ...meta });
    },
    writable,
  };
}
