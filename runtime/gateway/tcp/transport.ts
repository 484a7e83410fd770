/**
 * The TCP frame transport: frames of docs/protocols.md over a byte stream,
 * many calls per connection by `id`. Calls are read by call-reader.ts
 * (framing, slow senders: `frameTimeout`, `maxTotalBufferedBytes`) and
 * answered through reply-sink.ts (backpressure: `highWaterMark`,
 * `maxBufferedBytes`). Silent connections time out after `idleTimeout`.
 * A client that half-closes (FIN) after its
 * requests still gets every reply; the server ends its side once they are
 * sent. `drain()` lets each connection's calls finish, then ends it.
 */
import type { Socket } from 'node:net';
import type { GatewayCore } from '../gateway-core';
import { nextConnectionId } from '../gateway-core';
import type { BufferedOutput, OutputBudget } from '../output-budget';
import { CallSession } from '../session/call-session';
import { encodeFrame, FrameType } from '../wire/frame-codec';
import { TcpCallReader, type PartialFrameBytes } from './call-reader';
import { tcpContexts } from './context';
import { tcpReplies } from './reply-sink';
import type { TransportAdapter } from '../transport-adapter';

/** The constructor's `tcp` options. */
export interface TcpGatewayConfig {
  keepAlive?: boolean;
  noDelay?: boolean;
  /** Largest frame payload in bytes; default 4 MiB. */
  maxFrameSize?: number;
  /** Close connections idle for this long (ms); default 120000. */
  idleTimeout?: number;
  /** Output bytes buffered before reading pauses; default 1 MiB. */
  highWaterMark?: number;
  /** Output bytes buffered before the connection is dropped; default 16 MiB. */
  maxBufferedBytes?: number;
  maxConcurrentCalls?: number;
  /** A frame whose first byte has arrived must be complete within this many ms; default 30000. */
  frameTimeout?: number;
  /** Bytes of incomplete frames held across all connections before the connection adding more is dropped; default 64 MiB. */
  maxTotalBufferedBytes?: number;
}

/** How a connection is told to finish: end its side once its calls are done. */
interface TcpConnection {
  readonly socket: Socket;
  finishWhenIdle: () => void;
}

/** The TCP frame transport; `handle` serves one connection. */
export class TcpTransport implements TransportAdapter {
  readonly transport = 'tcp' as const;
  readonly #core: GatewayCore;
  readonly #config: () => TcpGatewayConfig;
  readonly #connections = new Set<TcpConnection>();
  /** Bytes held in partial frames, all connections together. */
  readonly #partial: PartialFrameBytes = { bytes: 0 };
  #draining = false;
  readonly #budget: OutputBudget | undefined;

  /** `budget`: the gateway-wide cap on output buffered for clients that do not read (output-budget.ts). */
  constructor(core: GatewayCore, config: () => TcpGatewayConfig, budget?: OutputBudget) {
    this.#core = core;
    this.#config = config;
    this.#budget = budget;
  }

  /** Serves one connection (handed over by the mux, or from a dedicated net.Server). */
  handle(socket: Socket): void {
    const core = this.#core;
    const config = this.#config();
    const highWater = config.highWaterMark ?? 1 << 20;
    const maxBuffered = config.maxBufferedBytes ?? 16 << 20;
    const connectionId = nextConnectionId('tcp');
    const opened = Date.now();
    // The reply side stays open after the client's FIN, so a half-closed client still gets its replies.
    socket.allowHalfOpen = true;
    if (config.keepAlive !== false) socket.setKeepAlive(true);
    if (config.noDelay !== false) socket.setNoDelay(true);
    if (core.observed) core.emit({ type: 'connection-open', protocol: 'tcp', connectionId });

    const budget = this.#budget;
    const output: BufferedOutput = {
      protocol: 'tcp',
      connectionId,
      bufferedBytes: () => socket.writableLength,
      cut: (reason) => {
        // An error frame for a client that still reads; its buffers are freed within a second either way.
        socket.end(encodeFrame(FrameType.Error, { id: null, error: { code: 'RESOURCE_EXHAUSTED', message: reason } }));
        setTimeout(() => socket.destroy(), 1000).unref();
      },
    };
    const replies = tcpReplies(core, socket, connectionId, { highWater, maxBuffered }, budget, output);
    const session = new CallSession(core, 'tcp', replies, tcpContexts(socket, connectionId), {
      maxConcurrentCalls: config.maxConcurrentCalls ?? 1000,
      maxQueuedMessages: 1024,
      clientStreaming: true,
      serverStreaming: true,
      perCallSignals: true,
    });
    const connection: TcpConnection = { socket, finishWhenIdle: () => undefined };
    this.#connections.add(connection);
    socket.setTimeout(config.idleTimeout ?? 120_000, () => socket.destroy());
    // Our FIN, then the socket is gone once it is flushed: a peer that never closes its side holds nothing.
    const finish = (): void => {
      socket.end(() => socket.destroy());
    };
    const reader = new TcpCallReader(session, replies, { maxFrameSize: config.maxFrameSize ?? 4 << 20, frameTimeout: config.frameTimeout ?? 30_000, maxPartial: config.maxTotalBufferedBytes ?? 64 << 20 }, this.#partial, () => {
      finish();
      socket.pause();
    });
    socket.on('data', (chunk: Buffer) => {
      if (core.observed) core.emit({ type: 'message', protocol: 'tcp', direction: 'in', bytes: chunk.length, connectionId });
      reader.push(chunk);
    });
    const finishWhenIdle = (): void => {
      void session.whenIdle().then(() => {
        if (!socket.destroyed) finish();
      });
    };
    connection.finishWhenIdle = finishWhenIdle;
    // The client sent FIN: no more requests; end our side once every reply is out.
    socket.on('end', finishWhenIdle);
    if (this.#draining) finishWhenIdle();
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      reader.close();
      this.#connections.delete(connection);
      budget?.forget(output);
      session.close();
      if (core.observed) core.emit({ type: 'connection-close', protocol: 'tcp', connectionId, durationMs: Date.now() - opened });
    });
  }

  /**
   * Graceful stop: every connection ends (FIN) once its running calls have
   * replied; resolves when all are closed. New requests meanwhile are refused
   * by the dispatcher (UNAVAILABLE).
   */
  drain(): Promise<void> {
    this.#draining = true;
    const closed: Promise<void>[] = [];
    for (const { socket, finishWhenIdle } of this.#connections) {
      closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
      finishWhenIdle();
    }
    return Promise.all(closed).then(() => undefined);
  }

  /** Cuts every connection now. */
  close(): void {
    for (const { socket } of this.#connections) socket.destroy();
    this.#connections.clear();
    this.#draining = false;
  }
}
