/**
 * Backpressure shared by the transports that write to a stream: a reply
 * writer that finds the stream over its high-water mark waits here until the
 * stream drains, or closes (a client gone never drains, and must not hold the
 * handler's generator forever).
 */
import type { EventEmitter } from 'node:events';

/** Resolves at the stream's next 'drain' or 'close', whichever comes first. */
export function drainOrClose(stream: EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
