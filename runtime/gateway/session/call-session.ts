/**
 * Many concurrent calls over one connection, matched by `id`: the envelope
 * logic shared by the WebSocket and TCP transports. The transport decodes
 * messages into start/push/end events (its call-reader.ts) and writes
 * envelopes through its EnvelopeReplies (its reply-sink.ts); each call
 * answers through its own ReplySink over them (envelope-call.ts). This file
 * owns the call lifecycle,
 * client-stream queues, server-stream pumping with backpressure, and
 * cancellation: when the connection goes away, when the client sends a
 * cancel message for one call, or when the call's `timeout` (ms, from the
 * request envelope) passes — then the client gets DEADLINE_EXCEEDED.
 */
import type { Protocol, RequestContext, TracingInfo } from '../../core/request-context';
import { AsyncQueue } from '../async-queue';
import { catalogueError, decodeFailure, type ServiceError, ServiceErrors, toServiceError } from '../errors';
import { envelopeDeadline, type CallDeadline } from '../../rpc/deadline';
import { envelopeHeadError } from './envelope-checks';
import type { GatewayCore } from '../gateway-core';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import { envelopeTracing } from '../../rpc/tracing';
import { CallCancellation } from './call-cancellation';
import { EnvelopeCall } from './envelope-call';
import { safeReplies, type EnvelopeReplies } from './envelope-replies';

/** A decoded request envelope (WebSocket message, TCP/UDP frame payload). */
export interface EnvelopeRequest {
  id?: unknown;
  service?: unknown;
  method?: unknown;
  data?: unknown;
  auth?: unknown;
  traceId?: unknown;
  traceparent?: unknown;
  metadata?: unknown;
  /** The call's deadline in ms from its arrival (a positive integer). */
  timeout?: unknown;
}

/** Builds the per-call context from the envelope; `signal` is a function when the call's own signal is made on first read. */
export type ContextFactory = (message: EnvelopeRequest, tracing: TracingInfo, signal: AbortSignal | (() => AbortSignal)) => RequestContext;

/** Limits and capabilities of one connection's session. */
export interface CallSessionOptions {
  /** Calls in flight per connection before new ones are refused with RESOURCE_EXHAUSTED. */
  maxConcurrentCalls: number;
  /** Unconsumed client-stream messages per call before the call fails. */
  maxQueuedMessages: number;
  /** Which streaming modes this transport can carry. */
  clientStreaming: boolean;
  serverStreaming: boolean;
  /** Shared controller (UDP: one per transport); default one per session. */
  controller?: AbortController;
  /**
   * Each call gets its own signal (WebSocket, TCP): a cancel message or the
   * call's timeout aborts that call alone. Otherwise every call has the
   * session's signal and `timeout` still fails the call but cannot abort it.
   */
  perCallSignals?: boolean;
}

function key(id: unknown): string {
  return typeof id === 'string' ? id : String(id);
}

/** The calls of one connection (or one datagram), matched by id. */
export class CallSession {
  readonly #core: GatewayCore;
  readonly #protocol: Protocol;
  readonly #sink: EnvelopeReplies;
  readonly #contextFor: ContextFactory;
  readonly #options: CallSessionOptions;
  readonly #active = new Map<string, EnvelopeCall>();
  /** Running calls without an id that have their own cancellation: close() must reach them too. */
  readonly #anonymous = new Set<EnvelopeCall>();
  /** The connection's signal: every call ends when the connection does. */
  readonly #controller: AbortController;
  #closed = false;
  /** Calls dispatched and not yet answered (id-less ones included); drain waits for zero. */
  #running = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(core: GatewayCore, protocol: Protocol, sink: EnvelopeReplies, contextFor: ContextFactory, options: CallSessionOptions) {
    this.#core = core;
    this.#protocol = protocol;
    this.#sink = safeReplies(sink);
    this.#contextFor = contextFor;
    this.#options = options;
    this.#controller = options.controller ?? new AbortController();
  }

  get activeCalls(): number {
    return this.#active.size;
  }

  /** Resolves once no dispatched call is still running (at once when none is); used by half-close and drain. */
  whenIdle(): Promise<void> {
    if (this.#running === 0 || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #settled(): void {
    this.#running--;
    if (this.#running === 0) for (const w of this.#idleWaiters.splice(0)) w();
  }

  /** A request envelope arrived. Never throws: every problem becomes an error reply. */
  start(message: EnvelopeRequest): void {
    if (this.#closed) return;
    const id = message.id;
    const tracing = envelopeTracing(message);
    const refused = envelopeHeadError(message);
    if (refused !== undefined) {
      this.#sink.error(refused.replyId, refused.error, tracing.traceId);
      return;
    }
    const service = message.service as string;
    const method = message.method as string;
    const resolved = this.#core.dispatcher.resolve(service, method);
    const streaming = resolved?.streaming ?? 'none';
    const clientStreams = streaming === 'client' || streaming === 'bidirectional';
    const serverStreams = streaming === 'server' || streaming === 'bidirectional';
    if ((clientStreams && !this.#options.clientStreaming) || (serverStreams && !this.#options.serverStreaming)) {
      this.#sink.error(id, ServiceErrors.unsupportedStreaming(this.#protocol, streaming), tracing.traceId);
      return;
    }
    const k = key(id);
    if (id !== undefined && this.#active.has(k)) {
      this.#sink.error(id, ServiceErrors.badRequest(`A call with id ${k} is already in progress`), tracing.traceId);
      return;
    }
    if (clientStreams && id === undefined) {
      this.#sink.error(id, ServiceErrors.badRequest('Streaming calls need an "id"'), tracing.traceId);
      return;
    }
    let deadline: CallDeadline | undefined;
    try {
      deadline = envelopeDeadline(message.timeout);
    } catch (error) {
      this.#sink.error(id, toServiceError(error), tracing.traceId);
      return;
    }
    if (this.#active.size >= this.#options.maxConcurrentCalls) {
      this.#sink.error(id, catalogueError('RESOURCE_EXHAUSTED', `More than ${this.#options.maxConcurrentCalls} calls in flight on this connection`), tracing.traceId);
      return;
    }
    const queue = clientStreams ? new AsyncQueue<unknown>(this.#options.maxQueuedMessages) : undefined;
    const cancellation = this.#options.perCallSignals === true ? new CallCancellation(this.#controller.signal) : undefined;
    const call = new EnvelopeCall(this.#sink, id, method, tracing.traceId, resolved, queue, cancellation);
    if (id !== undefined) this.#active.set(k, call);
    let request: unknown;
    try {
      request = queue ?? (resolved?.fromJSON === undefined ? (message.data ?? {}) : resolved.fromJSON(message.data));
    } catch (error) {
      this.#finish(id, k, call);
      // Through the interceptors, so monitoring counts the refusal with its status.
      const context = this.#contextFor(message, tracing, this.#controller.signal);
      this.#core.dispatcher.refuse(resolved, service, method, decodeFailure(error), context, message).catch((refused: unknown) => {
        if (!this.#closed) this.#sink.error(id, toServiceError(refused), tracing.traceId);
      });
      return;
    }
    if (id === undefined && cancellation !== undefined) this.#anonymous.add(call);
    const context = this.#contextFor(message, tracing, cancellation === undefined ? this.#controller.signal : () => cancellation.signal);
    call.context = context;
    if (deadline !== undefined) call.timer = setTimeout(() => this.#expire(id, k, call, deadline.ms), deadline.ms);
    this.#running++;
    this.#core.dispatcher.call(resolved, service, method, request, context, message, deadline).then(
      (result) => {
        if (!serverStreams) {
          this.#finish(id, k, call);
          if (call.over) {
            this.#settled();
            return;
          }
          try {
            this.#reply(call, result);
          } catch (error) {
            // A result that cannot be encoded (toJSON threw, circular data) is the handler's failure.
            if (!this.#closed) this.#sink.error(id, toServiceError(error), call.traceId);
          }
          this.#settled();
          return;
        }
        // A drain past its timeout ends the stream with an error reply before the connection is cut.
        const untrack = this.#core.dispatcher.trackStream((error) => this.#end(id, k, call, error));
        this.#pump(call, result).then(
          () => {
            untrack();
            this.#finish(id, k, call);
            this.#settled();
          },
          (error: unknown) => {
            untrack();
            this.#failed(id, k, call, error);
          },
        );
      },
      (error: unknown) => this.#failed(id, k, call, error),
    );
  }

  #failed(id: unknown, k: string, call: EnvelopeCall, error: unknown): void {
    this.#finish(id, k, call);
    if (!this.#closed && !call.over) call.fail(toServiceError(error));
    this.#settled();
  }

  /** One client-stream message for call `id`. */
  push(id: unknown, data: unknown): void {
    const call = this.#active.get(key(id));
    if (call === undefined || call.queue === undefined) {
      this.#sink.error(id, ServiceErrors.badRequest(`No client stream with id ${key(id)} is open`), undefined);
      return;
    }
    let item: unknown;
    try {
      item = call.resolved?.fromJSON === undefined ? data : call.resolved.fromJSON(data);
    } catch (error) {
      call.queue.fail(decodeFailure(error, 'Stream message'));
      return;
    }
    if (!call.queue.push(item)) {
      call.queue.fail(catalogueError('RESOURCE_EXHAUSTED', `More than ${this.#options.maxQueuedMessages} unconsumed stream messages`));
    }
  }

  /** The client finished its stream for call `id`. */
  end(id: unknown): void {
    const call = this.#active.get(key(id));
    if (call === undefined || call.queue === undefined) {
      this.#sink.error(id, ServiceErrors.badRequest(`No client stream with id ${key(id)} is open`), undefined);
      return;
    }
    call.queue.end();
  }

  /**
   * The client cancelled call `id`: its signal aborts, its client stream
   * fails, and nothing more is sent for it. An unknown id is ignored (the
   * call may have finished while the cancel was on its way).
   */
  cancel(id: unknown): void {
    const k = key(id);
    const call = this.#active.get(k);
    if (call === undefined) return;
    this.#abandon(k, call, ServiceErrors.cancelled());
  }

  #expire(id: unknown, k: string, call: EnvelopeCall, timeout: number): void {
    this.#end(id, k, call, ServiceErrors.deadlineExceeded(timeout));
  }

  /** Ends a running call early with `error` as its last reply (a passed deadline, a drain). */
  #end(id: unknown, k: string, call: EnvelopeCall, error: ServiceError): void {
    if (call.over || this.#closed) return;
    this.#abandon(k, call, error);
    call.fail(error);
  }

  /** Ends a call early: marked over, removed (its id may be used again), its signal and client stream aborted. */
  #abandon(k: string, call: EnvelopeCall, reason: ServiceError): void {
    call.over = true;
    clearTimeout(call.timer);
    if (this.#active.get(k) === call) this.#active.delete(k);
    this.#anonymous.delete(call);
    call.queue?.fail(reason);
    call.cancellation?.abort(reason);
  }

  /** The connection is gone: cancel every call. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#controller.abort();
    for (const call of [...this.#active.values(), ...this.#anonymous]) {
      clearTimeout(call.timer);
      call.cancellation?.abort();
      call.queue?.fail(ServiceErrors.cancelled('Connection closed'));
    }
    this.#active.clear();
    this.#anonymous.clear();
    for (const w of this.#idleWaiters.splice(0)) w();
  }

  #finish(id: unknown, k: string, call: EnvelopeCall): void {
    clearTimeout(call.timer);
    if (id === undefined) this.#anonymous.delete(call);
    else if (this.#active.get(k) === call) this.#active.delete(k);
  }

  #reply(call: EnvelopeCall, result: unknown): void {
    if (this.#closed) return;
    const toJSON = call.resolved?.toJSON;
    call.message(toJSON === undefined ? result : toJSON(result));
  }

  async #pump(call: EnvelopeCall, result: unknown): Promise<void> {
    if (result === null || typeof result !== 'object' || typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') {
      throw ServiceErrors.notIterable();
    }
    const toJSON = call.resolved?.toJSON;
    const signal = call.cancellation ?? this.#controller.signal;
    for await (const item of result as AsyncIterable<unknown>) {
      if (signal.aborted || call.over) return;
      const wait = this.#sink.writable();
      if (wait !== undefined) await wait;
      if (signal.aborted || call.over) return;
      call.item(toJSON === undefined ? item : toJSON(item));
    }
    if (!signal.aborted && !call.over) call.end();
  }
}
