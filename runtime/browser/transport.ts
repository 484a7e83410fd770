/**
 * The contract between the typed calls (calls.ts) and a transport
 * (WebSocket or fetch): one call in, the response JSON values out, plus the
 * per-call options and the local deadline/cancel guard both transports use.
 */
import type { Method } from './method';
import { RpcError } from './rpc-error';

/** Per-call options. */
export interface CallOptions {
  /** Aborting cancels the call: the server is told (its `context.signal` aborts) and the call fails with CANCELLED. */
  signal?: AbortSignal;
  /** The call's deadline in ms: sent to the server, and the call fails locally with DEADLINE_EXCEEDED when it passes. */
  timeoutMs?: number;
  /** Request metadata (text values), seen by the handler in `context.call` / `context.headers`. */
  metadata?: Record<string, string>;
}

/** Returns the credential to send with each call (a JWT, OAuth token or API key), or undefined for none. */
export type TokenProvider = () => string | undefined | Promise<string | undefined>;

/** Carries calls to the gateway; `input` is JSON (one value, or an async iterable for client and bidi streams). */
export interface Transport {
  /** Runs one call and yields its response JSON values (one for unary and client streams); breaking out of the loop cancels it. */
  call(method: Method, input: unknown, options: CallOptions): AsyncIterable<unknown>;
}

/** The provider's token; a provider that fails fails the call with UNAUTHENTICATED. */
export async function tokenFrom(provider: TokenProvider | undefined): Promise<string | undefined> {
  try {
    return await provider?.();
  } catch (error) {
    throw new RpcError('UNAUTHENTICATED', `The token provider failed: ${String(error)}`);
  }
}

/**
 * Arms the call's local deadline and its abort signal: `end` gets
 * DEADLINE_EXCEEDED or CANCELLED when either fires first. Returns the disarm
 * function; an already aborted signal fires at once.
 */
export function guardCall(options: CallOptions, end: (error: RpcError) => void): () => void {
  const { signal, timeoutMs } = options;
  const cancelled = (): void => end(new RpcError('CANCELLED', 'The call was cancelled'));
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => end(new RpcError('DEADLINE_EXCEEDED', `Deadline of ${timeoutMs} ms exceeded`)), timeoutMs);
  if (signal?.aborted === true) cancelled();
  else signal?.addEventListener('abort', cancelled);
  return () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', cancelled);
  };
}
