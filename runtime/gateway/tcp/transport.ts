/**
 * The TCP frame transport: frames of docs/protocols.md over a byte stream,
 * many calls per connection by `id`. A malformed header or an oversized
 * length gets an error frame and the connection is closed (framing is lost);
 * a bad JSON payload inside a well-formed frame only fails that frame.
 *
 * Backpressure: when the peer stops reading and the socket's write buffer
 * passes `highWaterMark`, reading pauses and stream producers wait for
 * `drain`; past `maxBufferedBytes` the connection is dropped. Silent
 * connections time out after `idleTimeout`.
 */
import type { Socket } from 'node:net';
import type { GatewayCore } from '../gateway-core';
import { nextConnectionId } from '../gateway-core';
import type { BufferedOutput, OutputBudget } from '../output-budget';
import { CallSession } from '../session/call-session';
import { BAD_HEADER, encodeFrame, FrameReader, FrameType } from '../wire/frame-codec';
import { frameReplySink, handleFrame } from '../wire/frame-replies';
import { tcpContexts } from './context';

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
}

/** The TCP frame transport; `handle` serves one connection. */
export class TcpTransport {
  readonly #core: GatewayCore;
  readonly #config: () => TcpGatewayConfig;
  readonly #sockets = new Set<Socket>();
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
    const reader = new FrameReader(config.maxFrameSize ?? 4 << 20);
    this.#sockets.add(socket);
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
    let paused = false;
    let corked = false;
    const uncork = (): void => {
      corked = false;
      socket.uncork();
    };
    const send = (frame: Buffer): void => {
      if (socket.destroyed || !socket.writable) return;
      // Replies finishing in the same tick leave in one write (one syscall, fewer packets).
      if (!corked) {
        corked = true;
        socket.cork();
        process.nextTick(uncork);
      }
      socket.write(frame);
      const buffered = socket.writableLength;
      if (core.observed) {
        core.emit({ type: 'message', protocol: 'tcp', direction: 'out', bytes: frame.length, connectionId });
        core.emit({ type: 'buffer', protocol: 'tcp', connectionId, bufferedBytes: buffered, limitBytes: maxBuffered });
      }
      budget?.note(output, buffered);
      if (buffered > maxBuffered) {
        socket.destroy();
      } else if (buffered > highWater && !paused) {
        paused = true;
        socket.pause();
      }
    };
    socket.on('drain', () => {
      if (paused) {
        paused = false;
        socket.resume();
      }
    });
    const writable = (): Promise<void> | undefined => {
      if (socket.writableLength <= highWater || socket.destroyed) return undefined;
      return new Promise((resolve) => {
        const done = (): void => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      });
    };
    const sink = frameReplySink(core, 'tcp', send, writable);
    const session = new CallSession(core, 'tcp', sink, tcpContexts(socket, connectionId), {
      maxConcurrentCalls: config.maxConcurrentCalls ?? 1000,
      maxQueuedMessages: 1024,
      clientStreaming: true,
      serverStreaming: true,
    });
    socket.setTimeout(config.idleTimeout ?? 120_000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      if (core.observed) core.emit({ type: 'message', protocol: 'tcp', direction: 'in', bytes: chunk.length, connectionId });
      for (const frame of reader.push(chunk)) {
        handleFrame(frame, session, sink);
        if (frame.type === BAD_HEADER) {
          // Framing is lost: the error frame above is the last word.
          socket.end();
          socket.pause();
          return;
        }
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      budget?.forget(output);
      this.#sockets.delete(socket);
      session.close();
      if (core.observed) core.emit({ type: 'connection-close', protocol: 'tcp', connectionId, durationMs: Date.now() - opened });
    });
  }

  close(): void {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }
}
