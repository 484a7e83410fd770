/**
 * Server streams over HTTP/1.1: NDJSON (`application/x-ndjson`, one
 * `{"data": item}` line per message, a final `{"error": ...}` line on failure)
 * or Server-Sent Events when the client accepts `text/event-stream`
 * (`data:` events, then `event: end` or `event: error`). Writes wait for
 * `drain`, so a slow reader slows the producer instead of filling memory.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

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

/** True when the client asked for Server-Sent Events rather than NDJSON. */
export function isSse(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').includes('text/event-stream');
}

/** Ends a begun stream with its error line (NDJSON) or `error` event (SSE): a deadline, a drain, a failure. */
export function endStream(res: ServerResponse, sse: boolean, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  const json = JSON.stringify(body ?? {});
  res.end(sse ? `event: error\ndata: ${json}\n\n` : `${json}\n`);
}

/** Streams `items` to `res`; resolves when done. Errors after headers are sent go in-band. */
export async function writeStream(
  res: ServerResponse,
  items: AsyncIterable<unknown>,
  sse: boolean,
  toJSON: ((v: unknown) => unknown) | undefined,
  signal: AbortSignal,
  /** The error line's body for what the stream threw (the user's transformError applied). */
  renderError: (e: unknown) => unknown,
): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', sse ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.flushHeaders();
  try {
    for await (const item of items) {
      if (signal.aborted || res.destroyed || res.writableEnded) return;
      const json = JSON.stringify(toJSON === undefined ? item : toJSON(item));
      const ok = res.write(sse ? `data: ${json}\n\n` : `{"data":${json}}\n`);
      if (!ok) await drained(res, signal);
    }
    if (res.writableEnded) return;
    if (sse) res.write('event: end\ndata: {}\n\n');
    res.end();
  } catch (error) {
    endStream(res, sse, renderError(error));
  }
}
