/**
 * The conformance adapters over the gateway's HTTP/1.1 side, with fetch as
 * the client: HTTP/JSON (a client stream is a JSON array body), NDJSON and
 * SSE, Connect and gRPC-Web (each with the JSON or the protobuf codec, over
 * HTTP/1.1 or h2c: http-client.ts).
 */
import { envelope, envelopes } from '../support/envelopes';
import { jsonText, streamItems, type CallKind, type Connection, type Json, type Outcome, type WireCodec } from './adapter-types';
import { FETCH, type HttpClient } from './http-client';

const post = FETCH.post;
const abortedFetch = (url: string, headers: Record<string, string>, body: string | Buffer, afterMs: number): Promise<void> => FETCH.cancelled(url, headers, body, afterMs, false);

const CONNECT_CODES = [
  'ok', 'canceled', 'unknown', 'invalid_argument', 'deadline_exceeded', 'not_found', 'already_exists', 'permission_denied',
  'resource_exhausted', 'failed_precondition', 'aborted', 'out_of_range', 'unimplemented', 'internal', 'unavailable', 'data_loss', 'unauthenticated',
];

/** The `grpc-timeout` header for a deadline, in milliseconds. */
const grpcTimeout = (timeoutMs: number | undefined): Record<string, string> => (timeoutMs === undefined ? {} : { 'grpc-timeout': `${timeoutMs}m` });

const streamsIn = (kind: CallKind): boolean => kind === 'client' || kind === 'bidi';

/** HTTP/JSON: the default binding `POST /api/<Service>/<method>`; a client stream's body is a JSON array. */
export function httpJson(base: string): Connection {
  const body = (kind: CallKind, input: unknown): string => (streamsIn(kind) ? JSON.stringify(streamItems(input)) : jsonText(input));
  return {
    async call(service, method, kind, input, timeoutMs) {
      const res = await post(`${base}/api/${service}/${method}`, { 'content-type': 'application/json', ...grpcTimeout(timeoutMs) }, body(kind, input));
      const reply = (await res.json()) as Json;
      if (res.ok) return { items: [reply.data] };
      return { items: [], error: { code: reply.error as string, http: res.status, message: reply.message as string } };
    },
    cancel: (service, method, kind, input, afterMs) => abortedFetch(`${base}/api/${service}/${method}`, { 'content-type': 'application/json' }, body(kind, input), afterMs),
    close: () => undefined,
  };
}

/** NDJSON (`{"data":…}` lines, an error line last) or SSE (`data:` events, `event: error`); a bidi stream's body is a JSON array. */
export function httpStream(base: string, sse: boolean): Connection {
  const headersOf = (timeoutMs?: number): Record<string, string> => ({ 'content-type': 'application/json', ...(sse ? { accept: 'text/event-stream' } : {}), ...grpcTimeout(timeoutMs) });
  const body = (kind: CallKind, input: unknown): string => (streamsIn(kind) ? JSON.stringify(streamItems(input)) : jsonText(input));
  return {
    async call(service, method, kind, input, timeoutMs) {
      const res = await post(`${base}/api/${service}/${method}`, headersOf(timeoutMs), body(kind, input));
      const text = await res.text();
      if (res.status !== 200) {
        const reply = JSON.parse(text) as Json;
        return { items: [], error: { code: reply.error as string, message: reply.message as string } };
      }
      return sse ? sseOutcome(text) : ndjsonOutcome(text);
    },
    cancel: (service, method, kind, input, afterMs) => abortedFetch(`${base}/api/${service}/${method}`, headersOf(), body(kind, input), afterMs),
    close: () => undefined,
  };
}

/** The items and the error of an NDJSON body. */
export function ndjsonOutcome(text: string): Outcome {
  const items: unknown[] = [];
  let error: Outcome['error'];
  for (const line of text.split('\n').filter((l) => l !== '')) {
    const parsed = JSON.parse(line) as Json;
    if ('data' in parsed) items.push(parsed.data);
    else error = { code: parsed.error as string, message: parsed.message as string };
  }
  return error === undefined ? { items } : { items, error };
}

/** The items and the error of an SSE body. */
export function sseOutcome(text: string): Outcome {
  const items: unknown[] = [];
  let error: Outcome['error'];
  for (const event of text.split('\n\n').filter((e) => e !== '')) {
    // SSE lines end at CR or LF only: a U+2028 in the data is not a line end (a RegExp `$` would take it for one).
    const lines = event.split(/\r?\n/);
    const name = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length);
    const data = JSON.parse(lines.find((l) => l.startsWith('data: '))?.slice('data: '.length) ?? 'null') as Json;
    if (name === undefined) items.push(data);
    else if (name === 'error') error = { code: data.error as string, message: data.message as string };
  }
  return error === undefined ? { items } : { items, error };
}

/** The request envelopes of a call: one message, or every item of a client stream. */
function requestEnvelopes(codec: WireCodec, method: string, kind: CallKind, input: unknown): Buffer {
  const messages = streamsIn(kind) ? streamItems(input) : [input];
  return Buffer.concat(messages.map((m) => envelope(0, codec.encode(method, m))));
}

/** Connect: unary `application/json` or `application/proto`; streams `application/connect+json` or `+proto`. */
export function connect(base: string, codec: WireCodec, name: 'json' | 'proto', http: HttpClient = FETCH): Connection {
  const unaryType = name === 'json' ? 'application/json' : 'application/proto';
  const streamType = `application/connect+${name}`;
  return {
    async call(service, method, kind, input, timeoutMs) {
      const url = `${base}/${codec.service(service)}/${method}`;
      const timeout: Record<string, string> = timeoutMs === undefined ? {} : { 'connect-timeout-ms': String(timeoutMs) };
      if (kind === 'unary') {
        const res = await http.post(url, { 'content-type': unaryType, 'connect-protocol-version': '1', ...timeout }, codec.encode(method, input));
        const bytes = Buffer.from(await res.arrayBuffer());
        if (res.ok) return { items: [codec.decode(method, bytes)] };
        // Errors are JSON whatever the codec.
        const body = JSON.parse(bytes.toString('utf8')) as Json;
        return { items: [], error: { code: res.headers.get('x-error-code') ?? undefined, grpc: CONNECT_CODES.indexOf(body.code as string), message: body.message as string } };
      }
      const res = await http.post(url, { 'content-type': streamType, ...timeout }, requestEnvelopes(codec, method, kind, input));
      return connectStreamOutcome(Buffer.from(await res.arrayBuffer()), (bytes) => codec.decode(method, bytes));
    },
    cancel: (service, method, kind, input, afterMs) => {
      const url = `${base}/${codec.service(service)}/${method}`;
      return kind === 'unary'
        ? http.cancelled(url, { 'content-type': unaryType, 'connect-protocol-version': '1' }, codec.encode(method, input), afterMs, false)
        : http.cancelled(url, { 'content-type': streamType }, requestEnvelopes(codec, method, kind, input), afterMs, streamsIn(kind));
    },
    close: () => http.close(),
  };
}

/** The items and the end-of-stream error of a Connect streaming body. */
export function connectStreamOutcome(body: Buffer, decode: (bytes: Buffer) => unknown): Outcome {
  const frames = envelopes(body).list;
  const items = frames.filter((f) => (f.flags & 2) === 0).map((f) => decode(f.data));
  const end = JSON.parse(frames.find((f) => (f.flags & 2) !== 0)?.data.toString() ?? '{}') as { error?: Json; metadata?: Record<string, string[]> };
  if (end.error === undefined) return { items };
  return { items, error: { code: end.metadata?.['x-error-code']?.[0], grpc: CONNECT_CODES.indexOf(end.error.code as string), message: end.error.message as string } };
}

/** A gRPC-Web text body: base64 chunks, each padded on its own (a server writes one per message), joined. */
function fromBase64Chunks(text: string): Buffer {
  return Buffer.concat(text.split(/(?<==)(?=[^=])/).map((chunk) => Buffer.from(chunk, 'base64')));
}

/**
 * gRPC-Web (`application/grpc-web+json` or `+proto`; `text`: `application/grpc-web-text`, protobuf
 * base64-encoded both ways): enveloped messages, a trailers frame (or trailers-only headers).
 */
export function grpcWeb(base: string, codec: WireCodec, name: 'json' | 'proto' | 'text', http: HttpClient = FETCH): Connection {
  const headers = { 'content-type': name === 'text' ? 'application/grpc-web-text' : `application/grpc-web+${name}`, 'x-grpc-web': '1' };
  const body = (bytes: Buffer): string | Buffer => (name === 'text' ? bytes.toString('base64') : bytes);
  return {
    async call(service, method, kind, input, timeoutMs) {
      const res = await http.post(`${base}/${codec.service(service)}/${method}`, { ...headers, ...grpcTimeout(timeoutMs) }, body(requestEnvelopes(codec, method, kind, input)));
      const raw = Buffer.from(await res.arrayBuffer());
      const frames = envelopes(name === 'text' ? fromBase64Chunks(raw.toString('latin1')) : raw).list;
      const items = frames.filter((f) => (f.flags & 0x80) === 0).map((f) => codec.decode(method, f.data));
      const trailers = new Map<string, string>();
      res.headers.forEach((v, k) => trailers.set(k, v));
      const block = frames.find((f) => (f.flags & 0x80) !== 0)?.data.toString() ?? '';
      for (const line of block.split('\r\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      const status = Number(trailers.get('grpc-status') ?? '0');
      if (status === 0) return { items };
      return { items, error: { code: trailers.get('x-error-code'), grpc: status, message: decodeURIComponent(trailers.get('grpc-message') ?? '') } };
    },
    cancel: (service, method, kind, input, afterMs) =>
      http.cancelled(`${base}/${codec.service(service)}/${method}`, headers, body(requestEnvelopes(codec, method, kind, input)), afterMs, streamsIn(kind)),
    close: () => http.close(),
  };
}
