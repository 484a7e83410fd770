/**
 * How an inline method's streaming mode is decided when `streaming` is not
 * given (documented in docs/grpc.md):
 *
 * - an explicit `streaming` always wins;
 * - an `async function*` whose first parameter is named like a stream
 *   (`stream`, `requestStream`, `requests`, `messages`, `chunks`, `incoming`…)
 *   is bidirectional; any other `async function*` is server streaming;
 * - a plain function whose first parameter is named like a stream is client
 *   streaming; anything else is unary.
 */
import type { StreamingMode } from './descriptor';

const STREAM_PARAM = /^(\w*stream\w*|\w*requests|\w*messages|\w*chunks|incoming\w*|iterable|source)$/i;

/** The streaming mode of `handler` under the rule above. */
export function inferStreaming(handler: (...args: never[]) => unknown): StreamingMode {
  const generator = isAsyncGeneratorFunction(handler);
  const streamIn = STREAM_PARAM.test(firstParameterName(handler));
  if (generator) return streamIn ? 'bidirectional' : 'server';
  return streamIn ? 'client' : 'none';
}

/** True for `async function*` (and async generator methods). */
export function isAsyncGeneratorFunction(fn: unknown): boolean {
  return typeof fn === 'function' && fn.constructor?.name === 'AsyncGeneratorFunction';
}

function firstParameterName(fn: (...args: never[]) => unknown): string {
  const source = Function.prototype.toString.call(fn);
  const open = source.indexOf('(');
  const arrow = source.indexOf('=>');
  // `x => …` has no parentheses before the arrow.
  if (arrow >= 0 && (open < 0 || arrow < open)) return source.slice(0, arrow).replace(/^async\s*/, '').trim();
  const close = source.indexOf(')', open);
  if (open < 0 || close < 0) return '';
  const first = source.slice(open + 1, close).split(',')[0] ?? '';
  return first.replace(/[=:].*$/s, '').replace(/[{}[\]\s.]/g, '').trim();
}

/** True when `mode` is one of the spec's four modes. */
export function isStreamingMode(mode: unknown): mode is StreamingMode {
  return mode === 'none' || mode === 'server' || mode === 'client' || mode === 'bidirectional';
}
