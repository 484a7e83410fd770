/**
 * How a gRPC call answers (its ReplySink), over the engine's call port
 * (grpc/grpc-call-port.ts): a unary or client-streaming reply through
 * `reply`, a server stream's items through `write`/`drained` and its end
 * through `finish`, a failure through `fail` as a gRPC status with the
 * gateway's string code in the `x-error-code` trailer (and google.rpc.BadRequest
 * details for a refused message). Response headers (the trace id, gRPC+JSON's
 * content type, whatever the handler set through `context.call`) leave once,
 * with the first message or the status; the handler's trailers with the end.
 */
import { CollectedCallMetadata } from '../../core/call-metadata';
import type { RequestContext } from '../../core/request-context';
import { chooseCompression } from '../../grpc/compression';
import { valuesToMetadata as toMetadata, type FwStatusObject } from '../../grpc/errors';
import type { GrpcReplyStreamPort, GrpcUnaryPort } from '../../grpc/grpc-call-port';
import { MetadataMap } from '../../grpc/metadata-map';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import { encodeBadRequestStatus, STATUS_DETAILS_KEY } from '../../validation/status-details';
import type { FieldViolation } from '../../validation/violations';
import { grpcStatusOf, type ServiceError, toServiceError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import { RawMessage } from '../pass-through';
import type { ReplySink } from '../transport-adapter';
import { JsonReply } from './message-format';
import { decodedReply } from './raw-requests';

/** A port that answers once: unary and client-streaming calls. */
type AnswerPort = Pick<GrpcUnaryPort, 'sendMetadata' | 'reply' | 'fail'>;

/** What the sink reads of a call beside its port: its cancellation, marked finished once answered. */
interface Answered {
  finish(): void;
}

/** `error` as the gRPC status the caller gets: the user's transformError rendering, else the catalogue's. */
export function grpcStatus(core: Pick<GatewayCore, 'renderError'>, error: unknown): FwStatusObject {
  const se: ServiceError = toServiceError(error);
  const custom = core.renderError(se, 'grpc') as { code?: number; message?: string } | undefined;
  const trailer = new MetadataMap();
  trailer.set('x-error-code', se.code);
  if (se.details !== undefined) {
    try {
      trailer.set('x-error-details', JSON.stringify(se.details));
    } catch {
      // Details that cannot be serialised stay server-side.
    }
  }
  const code = custom?.code ?? grpcStatusOf(se);
  const message = custom?.message ?? se.message;
  // Refused messages carry the rich error model too: google.rpc.BadRequest, one entry per violation.
  if (se.code === 'VALIDATION_ERROR' && Array.isArray(se.details)) trailer.set(STATUS_DETAILS_KEY, encodeBadRequestStatus(code, message, se.details as FieldViolation[]));
  return { code, details: message, metadata: trailer };
}

/** The reply message as the wire takes it: JSON text when the request came as gRPC+JSON, else the value (or the bytes an instance passed back). */
export function wireReply(value: unknown, json: boolean, resolved: ResolvedMethod | undefined): unknown {
  if (!json || resolved?.toJSON === undefined) return value;
  if (value instanceof RawMessage) return new JsonReply(Buffer.from(JSON.stringify(resolved.toJSON(decodedReply(resolved, value)) ?? {})));
  return new JsonReply(Buffer.from(JSON.stringify(resolved.toJSON(value) ?? {})));
}

/** One gRPC call's replies, through its port. `headers` are the gateway's own response headers. */
export class GrpcReplySink implements ReplySink<unknown> {
  readonly #port: AnswerPort | GrpcReplyStreamPort;
  readonly #core: Pick<GatewayCore, 'renderError'>;
  readonly #headers: MetadataMap;
  readonly #context: RequestContext;
  readonly #answered: Answered | undefined;
  #headersSent = false;

  constructor(port: AnswerPort | GrpcReplyStreamPort, core: Pick<GatewayCore, 'renderError'>, headers: MetadataMap, context: RequestContext, answered?: Answered) {
    this.#port = port;
    this.#core = core;
    this.#headers = headers;
    this.#context = context;
    this.#answered = answered;
  }

  /** Sends the response headers now (once); later writes carry none. */
  sendHeaders(): void {
    if (this.#headersSent) return;
    this.#headersSent = true;
    this.#port.sendMetadata(withHandlerHeaders(this.#headers, this.#context, this.#port));
  }

  message(data: unknown): void {
    this.#answered?.finish();
    this.sendHeaders();
    (this.#port as AnswerPort).reply(data, handlerTrailers(this.#context));
  }

  item(data: unknown): void | Promise<void> {
    this.sendHeaders();
    const port = this.#port as GrpcReplyStreamPort;
    if (!port.write(data)) return port.drained();
  }

  end(): void {
    this.sendHeaders();
    (this.#port as GrpcReplyStreamPort).finish(handlerTrailers(this.#context));
  }

  fail(error: ServiceError): void {
    this.failWith(error);
  }

  /** Ends the call with whatever was thrown, rendered as its status with the handler's trailers. */
  failWith(error: unknown): void {
    this.#answered?.finish();
    this.sendHeaders();
    const status = grpcStatus(this.#core, error);
    status.metadata.merge(handlerTrailers(this.#context));
    this.#port.fail(status);
  }
}

/**
 * The gateway's own response headers plus those the handler set through
 * `context.call`; also hands the handler's compression choice to the framing
 * hooks, which decide `grpc-encoding` as these headers go out.
 */
function withHandlerHeaders(reply: MetadataMap, context: RequestContext, source: unknown): MetadataMap {
  const call = context.call;
  if (!(call instanceof CollectedCallMetadata)) return reply;
  if (call.compression !== undefined) chooseCompression(source, call.compression);
  if (call.headers === undefined) return reply;
  const merged = reply.clone();
  merged.merge(toMetadata(call.headers));
  return merged;
}

/** The trailers the handler set through `context.call` (already validated when set). */
function handlerTrailers(context: RequestContext): MetadataMap {
  const call = context.call;
  return call instanceof CollectedCallMetadata && call.trailers !== undefined ? toMetadata(call.trailers) : new MetadataMap();
}
