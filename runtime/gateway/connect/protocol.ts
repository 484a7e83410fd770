/**
 * Which requests are Connect or gRPC-Web, read from the method, content-type
 * and a few headers (docs/protocols.md "Connect and gRPC-Web"):
 * - `application/connect+{proto,json}` → Connect streaming (enveloped);
 * - `application/{proto,json}` with `connect-protocol-version` → Connect unary;
 * - `GET` with `encoding=` (and `message=`) in the query → Connect unary GET;
 * - `application/grpc-web[-text][+proto|+json]` → gRPC-Web (binary or base64).
 * Everything else stays with the HTTP/JSON transport. The test is a header
 * read or two, so HTTP/JSON requests pay next to nothing for it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { WebRpcProtocol } from './context';

/** How a message body is serialized. */
export type MessageCodecName = 'proto' | 'json';

/** What a request is, on the wire. */
export interface WebRpcRequest {
  readonly protocol: WebRpcProtocol;
  /** undefined: a codec this server does not speak (→ 415). */
  readonly codec: MessageCodecName | undefined;
  /** Messages are enveloped (Connect streaming, gRPC-Web); a Connect unary body is the bare message. */
  readonly enveloped: boolean;
  /** gRPC-Web text: the body (both ways) is base64. */
  readonly text: boolean;
  /** Connect unary GET: the message is in the query. */
  readonly get: boolean;
  /** Content-type of a successful reply. */
  readonly contentType: string;
}

function codecOf(name: string): MessageCodecName | undefined {
  return name === 'proto' || name === 'json' ? name : undefined;
}

/** The media type without parameters, lower-cased. */
function mediaType(value: string | undefined): string {
  if (value === undefined) return '';
  if (value === 'application/json' || value === 'application/proto') return value;
  const semi = value.indexOf(';');
  return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
}

/** Classifies a POST by content-type; undefined when it is not Connect or gRPC-Web. */
function classifyPost(headers: IncomingHttpHeaders): WebRpcRequest | undefined {
  const type = mediaType(headers['content-type']);
  if (type.startsWith('application/connect+')) {
    const codec = codecOf(type.slice('application/connect+'.length));
    return { protocol: 'connect', codec, enveloped: true, text: false, get: false, contentType: type };
  }
  if (type.startsWith('application/grpc-web')) {
    const rest = type.slice('application/grpc-web'.length);
    const text = rest.startsWith('-text');
    const suffix = text ? rest.slice(5) : rest;
    const codec = suffix === '' ? 'proto' : suffix.startsWith('+') ? codecOf(suffix.slice(1)) : undefined;
    return { protocol: 'grpc-web', codec, enveloped: true, text, get: false, contentType: type };
  }
  if (headers['connect-protocol-version'] !== undefined) {
    // A Connect unary call in a content type Connect does not define (text/plain, a form) is Connect's 415, not an HTTP/JSON body.
    const codec = type.startsWith('application/') ? codecOf(type.slice('application/'.length)) : undefined;
    return { protocol: 'connect', codec, enveloped: false, text: false, get: false, contentType: type === '' ? '(none)' : type };
  }
  return undefined;
}

/** Classifies a request, or undefined when the HTTP/JSON transport should have it. */
export function classifyRequest(method: string | undefined, headers: IncomingHttpHeaders, query: URLSearchParams | undefined): WebRpcRequest | undefined {
  if (method === 'POST') return classifyPost(headers);
  if (method === 'GET' && query !== undefined && query.has('encoding') && (query.has('message') || query.get('connect') === 'v1')) {
    const codec = codecOf(query.get('encoding') ?? '');
    return { protocol: 'connect', codec, enveloped: false, text: false, get: true, contentType: `application/${codec ?? 'json'}` };
  }
  return undefined;
}

/** `/<routing prefix>/<package.Service>/<Method>` → service and method (the last two segments). */
export function procedureOf(path: string): { service: string; method: string } | undefined {
  const slash = path.lastIndexOf('/');
  if (slash <= 0 || slash === path.length - 1) return undefined;
  const before = path.lastIndexOf('/', slash - 1);
  if (before === -1 || before === slash - 1) return undefined;
  return { service: path.slice(before + 1, slash), method: path.slice(slash + 1) };
}
