/**
 * The Connect and gRPC-Web transport: browser and Connect-ES clients on the
 * gateway's HTTP/1.1 entry, beside HTTP/JSON. `tryHandle(req, res)` takes a
 * request when protocol.ts recognises it (else the HTTP/JSON transport gets
 * it), reads the message(s) (call-reader.ts), runs one dispatch — so auth,
 * validation, rate limits, metrics and error translation are the gateway's
 * own — and writes the reply in the caller's protocol (reply-sink.ts).
 * Deadlines come from `connect-timeout-ms` / `grpc-timeout` (read by
 * rpc/deadline.ts): when one passes, the caller gets `deadline_exceeded` and
 * the handler's signal aborts.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Http2ServerRequest, Http2ServerResponse, type ServerHttp2Stream } from 'node:http2';
import type { StreamingMode } from '../../rpc/descriptor';
import type { CredentialSource } from '../auth/types';
import { ServiceErrors, toServiceError, type ServiceError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import type { ServiceRegistry } from '../../rpc/registry';
import { HeaderTracing } from '../../rpc/tracing';
import type { HttpCallContext } from '../http-exchange';
import { webRpcContext } from './context';
import { webRpcCors, type CorsHandler, type WebRpcCorsConfig } from './cors';
import { decodeRequest, encodeResponse, supportsCodec } from './message-codec';
import { allowsGet } from './method-options';
import { classifyRequest, procedureOf, type MessageCodecName, type WebRpcRequest } from './protocol';
import { webRpcReplySink, type WebRpcReplySink } from './reply-sink';
import { decompress, getMessage, readWhole, requestEncoding, requestMessages, singleMessage, type RequestEncoding } from './call-reader';
import { toWireError, type WireError } from './wire-errors';
import type { TransportAdapter } from '../transport-adapter';
import { connectDeadline, grpcWebDeadline, type CallDeadline } from '../../rpc/deadline';

/** `connect` options of the gateway (also `configureConnect`). */
export interface ConnectGatewayConfig {
  /** Serve Connect and gRPC-Web on the HTTP port; default true (when HTTP is on). */
  enabled?: boolean;
  /** CORS for browser pages on other origins; off unless set. */
  cors?: WebRpcCorsConfig;
  /** Largest request message (after decompression), in bytes; default 4 MiB, like gRPC. */
  maxMessageSize?: number;
}

/** Throws a TypeError for a config the transport cannot use (checked when it is given, not per request). */
export function checkConnectConfig(config: ConnectGatewayConfig): void {
  if (config === null || typeof config !== 'object') throw new TypeError('connect options must be an object');
  const max = config.maxMessageSize;
  if (max !== undefined && (!Number.isInteger(max) || max <= 0)) throw new TypeError(`connect.maxMessageSize must be a positive integer, not ${String(max)}`);
  if (config.cors !== undefined) webRpcCors(config.cors);
}

/** A request this transport takes: a call (`wire`), or a CORS preflight (`wire` undefined). */
interface Claim {
  wire: WebRpcRequest | undefined;
  path: string;
  query: URLSearchParams | undefined;
}

function streamsIn(mode: StreamingMode): boolean {
  return mode === 'client' || mode === 'bidirectional';
}

function streamsOut(mode: StreamingMode): boolean {
  return mode === 'server' || mode === 'bidirectional';
}

async function* decodeEach(messages: AsyncIterable<Buffer>, decode: (bytes: Buffer) => unknown): AsyncIterable<unknown> {
  for await (const m of messages) yield decode(m);
}

/** gRPC-Web credentials read like gRPC metadata (`get(name)`) and like HTTP headers. */
function metadataView(req: IncomingMessage): CredentialSource {
  const headers = req.headers;
  return {
    headers,
    get(name: string): unknown[] {
      const v = headers[name.toLowerCase()];
      return v === undefined ? [] : Array.isArray(v) ? v : [v];
    },
  } as unknown as CredentialSource;
}

/** Plain HTTP refusal before any protocol framing (415, 405, 404, 500). */
function refuse(res: ServerResponse, status: number, message: string, extra: string[] = []): void {
  const code = status === 405 || status === 415 ? 'unimplemented' : status === 404 ? 'not_found' : 'internal';
  const body = JSON.stringify({ code, message });
  res.writeHead(status, ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), ...extra]);
  res.end(body);
}

/** Connect + gRPC-Web over the gateway's HTTP/1.1 port. */
export class ConnectTransport implements TransportAdapter {
  readonly transport = 'connect' as const;
  readonly #core: GatewayCore;
  readonly #registry: ServiceRegistry;
  readonly #config: () => ConnectGatewayConfig;
  #configRef: ConnectGatewayConfig | undefined = undefined;
  #cors: CorsHandler | undefined = undefined;
  #limit = 4 << 20;
  readonly #tracing: HeaderTracing;

  /** Its requests ride the listener's HTTP connections, which the listener drains (drainHttp) and cuts. */
  drain(): Promise<void> {
    return Promise.resolve();
  }

  /** Nothing of its own to cut: the listener closes the HTTP connections. */
  close(): void {}

  constructor(core: GatewayCore, registry: ServiceRegistry, config: () => ConnectGatewayConfig) {
    this.#core = core;
    this.#registry = registry;
    this.#config = config;
    this.#tracing = new HeaderTracing(() => core.traceHeader);
  }

  #prepare(): ConnectGatewayConfig {
    const config = this.#config();
    if (config !== this.#configRef) {
      this.#cors = config.cors === undefined ? undefined : webRpcCors(config.cors);
      this.#limit = config.maxMessageSize ?? 4 << 20;
      this.#configRef = config;
    }
    return config;
  }

  /** What a request is to this transport: a call, a preflight, or not ours (undefined). */
  #claim(verb: string | undefined, headers: IncomingHttpHeaders, url: string): Claim | undefined {
    if (verb !== 'POST' && verb !== 'GET' && verb !== 'OPTIONS') return undefined;
    if (this.#prepare().enabled === false) return undefined;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (verb === 'OPTIONS') {
      const preflight = this.#cors !== undefined && headers['access-control-request-method'] !== undefined && this.#resolve(path) !== undefined;
      return preflight ? { wire: undefined, path, query: undefined } : undefined;
    }
    const query = verb === 'GET' && q !== -1 ? new URLSearchParams(url.slice(q + 1)) : undefined;
    const wire = classifyRequest(verb, headers, query);
    if (wire === undefined) return undefined;
    // A GET is Connect only on a procedure path this gateway serves; others stay HTTP/JSON routes.
    if (wire.get && this.#resolve(path) === undefined) return undefined;
    return { wire, path, query };
  }

  /** Serves `req` when it is a Connect or gRPC-Web request (or a CORS preflight for one); false leaves it to HTTP/JSON. */
  tryHandle(req: IncomingMessage, res: ServerResponse): boolean {
    const claim = this.#claim(req.method, req.headers, req.url ?? '/');
    if (claim === undefined) return false;
    this.#take(req, res, claim);
    return true;
  }

  /**
   * The same for an HTTP/2 stream that grpc-js would refuse (grpc/foreign-streams.ts):
   * Connect and gRPC-Web over h2c, through node:http2's request/response objects.
   */
  readonly tryHandleHttp2 = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]): boolean => {
    const claim = this.#claim(headers[':method'] as string | undefined, headers, (headers[':path'] as string | undefined) ?? '/');
    if (claim === undefined) return false;
    const req = new Http2ServerRequest(stream, headers, {}, rawHeaders);
    const res = new Http2ServerResponse(stream);
    this.#take(req as unknown as IncomingMessage, res as unknown as ServerResponse, claim);
    return true;
  };

  #take(req: IncomingMessage, res: ServerResponse, claim: Claim): void {
    try {
      this.#route(req, res, claim);
    } catch {
      // Nothing may escape into node:http/node:http2 (an uncaught throw ends the process).
      if (res.headersSent) res.destroy();
      else refuse(res, 500, 'Internal server error');
    }
  }

  #route(req: IncomingMessage, res: ServerResponse, claim: Claim): void {
    const { wire, path, query } = claim;
    const cors = this.#cors;
    if (wire === undefined) {
      (cors as CorsHandler)(req, res, () => {
        res.statusCode = 204;
        res.end();
      });
      return;
    }
    if (cors === undefined) this.#serve(req, res, wire, path, query);
    else cors(req, res, () => this.#serve(req, res, wire, path, query));
  }

  #resolve(path: string): { service: string; method: string; resolved: ResolvedMethod | undefined } | undefined {
    const proc = procedureOf(path);
    if (proc === undefined) return undefined;
    const resolved = this.#core.dispatcher.resolve(proc.service, proc.method);
    return resolved === undefined ? undefined : { ...proc, resolved };
  }

  /** A failure in the caller's wire terms: the user's transformError (as for gRPC), then the wire-error table. */
  readonly #wireError = (se: ServiceError): WireError => {
    let custom: unknown;
    try {
      custom = this.#core.renderError(se, 'grpc');
    } catch {
      custom = undefined;
    }
    return toWireError(se, custom);
  };

  #serve(req: IncomingMessage, res: ServerResponse, wire: WebRpcRequest, path: string, query: URLSearchParams | undefined): void {
    const codec = wire.codec;
    if (codec === undefined) {
      req.resume();
      refuse(res, 415, `Unsupported content-type ${wire.contentType}; use proto or json`);
      return;
    }
    const proc = procedureOf(path);
    if (proc === undefined) {
      req.resume();
      refuse(res, 404, `Not a procedure path: ${path.slice(0, 200)}`);
      return;
    }
    const resolved = this.#core.dispatcher.resolve(proc.service, proc.method);
    if (resolved !== undefined) {
      if (!supportsCodec(resolved, codec)) {
        req.resume();
        refuse(res, 415, `${proc.service}/${proc.method} has no binary protobuf codec (inline service): use json`);
        return;
      }
      if (wire.get && (resolved.streaming !== 'none' || !allowsGet(this.#registry.service(resolved.service)?.descriptor, resolved.descriptor))) {
        refuse(res, 405, `${proc.service}/${proc.method} is not a unary method marked idempotency_level = NO_SIDE_EFFECTS: use POST`, ['Allow', 'POST']);
        return;
      }
      if (wire.protocol === 'connect' && wire.enveloped === (resolved.streaming === 'none')) {
        req.resume();
        refuse(res, 415, `${proc.service}/${proc.method} is ${resolved.streaming === 'none' ? 'unary: use application/' : 'streaming: use application/connect+'}${codec}`);
        return;
      }
    }
    const headers = req.headers;
    const tracing = this.#tracing.read(headers);
    let context: HttpCallContext | undefined;
    const reply = webRpcReplySink(res, wire, this.#core.traceHeader, tracing.traceId, () => context?.callInUse, this.#wireError);
    let deadline: CallDeadline | undefined;
    let encoding: RequestEncoding;
    try {
      deadline = wire.protocol === 'connect' ? connectDeadline(headers) : grpcWebDeadline(headers);
      const header = wire.protocol === 'grpc-web' ? headers['grpc-encoding'] : wire.enveloped ? headers['connect-content-encoding'] : headers['content-encoding'];
      encoding = requestEncoding(typeof header === 'string' ? header : undefined);
    } catch (e) {
      req.resume();
      reply.fail(toServiceError(e));
      return;
    }
    context = webRpcContext(req, res, wire.protocol, { method: req.method, path, rpc: wire.protocol, codec }, tracing);
    if (deadline !== undefined) this.#armDeadline(deadline, context, reply, res);
    const decode = (bytes: Buffer): unknown => decodeRequest(resolved as ResolvedMethod, codec, bytes);
    const streaming = resolved?.streaming ?? 'none';
    const credentials = wire.protocol === 'grpc-web' ? metadataView(req) : req;
    const dispatch = (request: unknown): Promise<unknown> => this.#core.dispatcher.call(resolved, proc.service, proc.method, request, context, credentials, deadline);
    if (resolved !== undefined && !streamsIn(streaming) && !wire.enveloped && !wire.get) {
      // Connect unary POST, the common case: no promise until dispatch.
      readWhole(req, this.#limit, (error, body) => {
        // The deadline passed (or the client left) while the body arrived: the handler never runs.
        if (reply.done) return;
        if (error !== undefined) {
          reply.fail(toServiceError(error));
          return;
        }
        let request: unknown;
        try {
          request = decode(decompress(body, encoding, this.#limit));
        } catch (e) {
          // Through the interceptors, so monitoring counts the refusal with its status.
          this.#settle(this.#core.dispatcher.refuse(resolved, proc.service, proc.method, toServiceError(e), context, credentials), streaming, resolved, codec, reply);
          return;
        }
        this.#settle(dispatch(request), streaming, resolved, codec, reply);
      });
      return;
    }
    let result: Promise<unknown>;
    if (resolved === undefined) {
      req.resume();
      result = dispatch(undefined);
    } else if (streamsIn(streaming)) {
      result = dispatch(decodeEach(requestMessages(req, wire, encoding, this.#limit), decode));
    } else {
      result = this.#readSingle(req, wire, encoding, query).then((bytes) => (reply.done ? undefined : dispatch(decode(bytes))));
    }
    this.#settle(result, streaming, resolved, codec, reply);
  }

  #settle(result: Promise<unknown>, streaming: StreamingMode, resolved: ResolvedMethod | undefined, codec: MessageCodecName, reply: WebRpcReplySink): void {
    result.then(
      (value) => (streamsOut(streaming) ? this.#stream(value, resolved as ResolvedMethod, codec, reply) : this.#answer(value, resolved as ResolvedMethod, codec, reply)),
      (error: unknown) => reply.fail(toServiceError(error)),
    );
  }

  /** The one message of a Connect GET or an enveloped unary-request call. */
  #readSingle(req: IncomingMessage, wire: WebRpcRequest, encoding: RequestEncoding, query: URLSearchParams | undefined): Promise<Buffer> {
    if (wire.get) {
      try {
        return Promise.resolve(getMessage(query as URLSearchParams, this.#limit));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return singleMessage(requestMessages(req, wire, encoding, this.#limit));
  }

  #armDeadline(deadline: CallDeadline, context: HttpCallContext, reply: WebRpcReplySink, res: ServerResponse): void {
    const timer = setTimeout(() => {
      reply.fail(ServiceErrors.deadlineExceeded(deadline.ms));
      context.abort();
    }, deadline.ms);
    res.once('close', () => clearTimeout(timer));
  }

  #answer(value: unknown, resolved: ResolvedMethod, codec: MessageCodecName, reply: WebRpcReplySink): void {
    let bytes: Buffer | string;
    try {
      bytes = encodeResponse(resolved, codec, value);
    } catch (e) {
      reply.fail(toServiceError(e));
      return;
    }
    reply.message(bytes);
    reply.end();
  }

  async #stream(value: unknown, resolved: ResolvedMethod, codec: MessageCodecName, reply: WebRpcReplySink): Promise<void> {
    // A drain past its timeout ends the stream with its end-of-stream error before the connection is cut.
    const untrack = this.#core.dispatcher.trackStream((error) => reply.fail(error));
    try {
      if (value === null || typeof value !== 'object' || !(Symbol.asyncIterator in value)) {
        throw ServiceErrors.notIterable();
      }
      for await (const item of value as AsyncIterable<unknown>) {
        if (reply.done) return;
        await reply.item(encodeResponse(resolved, codec, item));
      }
      reply.end();
    } catch (e) {
      reply.fail(toServiceError(e));
    } finally {
      untrack();
    }
  }
}
