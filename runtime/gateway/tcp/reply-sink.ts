/**
 * How a TCP frame connection answers: frames (wire/frame-replies.ts) written
 * to the socket, corked per tick so replies finishing together leave in one
 * write. Backpressure: past `highWaterMark` buffered bytes reading pauses
 * (until 'drain') and stream producers wait; past `maxBufferedBytes` the
 * connection is dropped. Each call's ReplySink is bound over these replies by
 * the session (session/envelope-call.ts).
 */
import type { Socket } from 'node:net';
import type { GatewayCore } from '../gateway-core';
import { drainOrClose } from '../drain-or-close';
import type { BufferedOutput, OutputBudget } from '../output-budget';
import type { EnvelopeReplies } from '../session/envelope-replies';
import { frameReplies } from '../wire/frame-replies';

/** Output bounds of one connection. */
export interface TcpOutputLimits {
  readonly highWater: number;
  readonly maxBuffered: number;
}

/** The replies of one connection; `budget` notes its output against the gateway-wide cap. */
export function tcpReplies(core: GatewayCore, socket: Socket, connectionId: string, limits: TcpOutputLimits, budget: OutputBudget | undefined, output: BufferedOutput): EnvelopeReplies {
  const { highWater, maxBuffered } = limits;
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
    return drainOrClose(socket);
  };
  return frameReplies(core, 'tcp', send, writable);
}
