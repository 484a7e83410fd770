/**
 * One forwarded unary call, from first attempt to answer: the call's
 * deadline (the forwarding default, or the caller's when sooner, sent on as
 * `grpc-timeout`), the choice of instance (balancer, circuit breaker,
 * bulkhead), and further attempts on other instances:
 * - always, for an attempt that never reached a handler (UNAVAILABLE with no
 *   response header: refused, reset, instance gone);
 * - for idempotent methods (`idempotency_level`), also after UNAVAILABLE,
 *   when the instance is found unresponsive while the attempt is out, and
 *   after the hedging delay; the first answer wins and the rest are cancelled.
 * One promise per call, settled from the attempts' callbacks: no async frame
 * or promise per attempt.
 */
import { GrpcStatus as GrpcCode } from '../../core/status';
import type { RequestContext } from '../../core/request-context';
import { callerCancelled, unwatchCaller, watchCaller } from './caller-cancel';
import type { DiscoveryDecision } from './forwarding-events';
import type { ForwardingPolicy } from './forwarding-policy';
import type { IncomingHttpHeaders } from 'node:http2';
import { callError } from './h2-grpc-wire';
import { relayHeaders, relayTrailers } from './metadata-relay';
import type { ServiceInstance } from './service-instance';

/** The instance's response headers and trailers on success, as far as the client saw them. */
export interface AttemptReply {
  headers: IncomingHttpHeaders | undefined;
  trailers: IncomingHttpHeaders | undefined;
}

/** How an attempt ended: `answered` tells whether the instance sent response headers. */
export type AttemptDone = (error: { code: number; message: string } | null, response: unknown, answered: boolean, reply?: AttemptReply) => void;

/** Sends one attempt to `instance` on `path`; returns its cancel function. */
export type AttemptStarter = (instance: ServiceInstance, path: string, deadline: number, done: AttemptDone) => () => void;

export interface UnaryForwarding {
  readonly service: string;
  readonly idempotent: boolean;
  readonly policy: ForwardingPolicy;
  /** The instance for the next attempt, or throws the error the call fails with. */
  pick(context: RequestContext, tried: ServiceInstance[], lastError: unknown): ServiceInstance;
  /** The gRPC path to use now. */
  path(): string;
  /** After UNIMPLEMENTED on `tried`: true when another candidate path should be tried. */
  nextPath(tried: string, error: unknown): boolean;
  observe(decision: DiscoveryDecision, instance: ServiceInstance | undefined, reason: string): void;
}

/**
 * Records an attempt's outcome on its instance: progress for the watchdog,
 * success or failure for the breaker. A deadline the caller set
 * (`ownDeadline` false) is not the instance's failure.
 */
export function recordOutcome(instance: ServiceInstance, code: number | null, answered = false, ownDeadline = true): void {
  if (code === GrpcCode.CANCELLED || (code === GrpcCode.DEADLINE_EXCEEDED && !ownDeadline)) return;
  instance.lastProgressAt = Date.now();
  // UNAVAILABLE and a passed deadline say the instance did not answer; any other status is its handler's answer.
  if (code === GrpcCode.UNAVAILABLE) instance.breaker.onFailure(answered ? 'UNAVAILABLE' : 'UNAVAILABLE before any answer');
  else if (code === GrpcCode.DEADLINE_EXCEEDED) instance.breaker.onFailure('no answer before the deadline');
  else instance.breaker.onSuccess();
}

/** Counts a call going out to `instance` (bulkhead, least_connections, watchdog clock, half-open trials). */
export function beginAttempt(instance: ServiceInstance): void {
  if (instance.inFlight === 0) instance.lastProgressAt = Date.now();
  instance.inFlight++;
  instance.breaker.onAttempt();
}

/** The caller's own deadline (epoch ms, a gRPC caller's `grpc-timeout`), if it set one. */
export function callerDeadline(context: RequestContext): number | undefined {
  const callers = (context.metadata as { deadline?: unknown }).deadline;
  return typeof callers === 'number' ? callers : undefined;
}

interface Attempt {
  readonly instance: ServiceInstance;
  cancel: (() => void) | undefined;
  done: boolean;
  readonly onStall: (() => void) | undefined;
}

/** Forwards one unary call of method `f` (fixed per method), each attempt sent by `start`. */
export function forwardUnary(f: UnaryForwarding, start: AttemptStarter, context: RequestContext): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // The forwarding default, or the caller's deadline when it is sooner.
    const ownAt = Date.now() + f.policy.deadlineMs;
    const callers = callerDeadline(context);
    const ownDeadline = callers === undefined || callers >= ownAt;
    const deadline = ownDeadline ? ownAt : callers;
    const tried: ServiceInstance[] = [];
    const live: Attempt[] = [];
    let lastError: unknown;
    let settled = false;
    let extra = 0;
    let hedgeTimer: NodeJS.Timeout | undefined;
    let watching = false;

    const settle = (error: unknown, value?: unknown, reply?: AttemptReply): void => {
      if (settled) return;
      settled = true;
      if (hedgeTimer !== undefined) clearTimeout(hedgeTimer);
      if (watching) unwatchCaller(context, cancelledByCaller);
      // A copy: cancelling runs the attempt's callback, which takes it out of `live`.
      if (live.length > 0) for (const a of [...live]) if (!a.done) a.cancel?.();
      if (error === null) {
        if (reply !== undefined) {
          relayHeaders(context, reply.headers);
          relayTrailers(context, reply.trailers);
        }
        resolve(value);
        return;
      }
      // The instance's status trailers (rich details, custom metadata) go back with its error.
      const trailers = (error as { trailers?: IncomingHttpHeaders; metadata?: { toHttp2Headers?: () => unknown } }).trailers
        ?? ((error as { metadata?: { toHttp2Headers?: () => unknown } }).metadata?.toHttp2Headers?.() as IncomingHttpHeaders | undefined);
      relayTrailers(context, trailers);
      reject(error);
    };

    const cancelledByCaller = (): void => settle(callError(GrpcCode.CANCELLED, 'Cancelled by the caller'));

    /** An idempotent call may send one more attempt (retry, hedge, unresponsive instance). */
    const mayRepeat = (): boolean => f.idempotent && tried.length < f.policy.maxAttempts && Date.now() < deadline && !callerCancelled(context);

    const launch = (why: DiscoveryDecision | undefined, reason: string): boolean => {
      let instance: ServiceInstance;
      try {
        instance = f.pick(context, tried, lastError);
      } catch (error) {
        if (live.length === 0) settle(error);
        return false;
      }
      if (why !== undefined) f.observe(why, instance, reason);
      tried.push(instance);
      beginAttempt(instance);
      const path = f.path();
      const attempt: Attempt = {
        instance,
        cancel: undefined,
        done: false,
        onStall: f.idempotent ? () => {
          if (!settled && !attempt.done && mayRepeat()) launch('retry', `${instance.key} is unresponsive`);
        } : undefined,
      };
      if (attempt.onStall !== undefined) instance.stallWaiters.add(attempt.onStall);
      live.push(attempt);
      attempt.cancel = start(instance, path, deadline, (error, response, answered, reply) => {
        attempt.done = true;
        instance.inFlight--;
        if (attempt.onStall !== undefined) instance.stallWaiters.delete(attempt.onStall);
        live.splice(live.indexOf(attempt), 1);
        recordOutcome(instance, error === null ? null : error.code, answered, ownDeadline);
        if (settled) return;
        if (error === null) {
          settle(null, response, reply);
          return;
        }
        if (f.nextPath(path, error)) {
          // The wrong path, not a failed instance: it may be picked again.
          tried.splice(tried.indexOf(instance), 1);
          launch(undefined, '');
          return;
        }
        lastError = error;
        if (error.code === GrpcCode.DEADLINE_EXCEEDED) {
          f.observe('deadline_exceeded', instance, `no answer within the ${ownDeadline ? 'forwarding' : "caller's"} deadline from ${instance.key}`);
        } else if (error.code === GrpcCode.UNAVAILABLE && !callerCancelled(context) && Date.now() < deadline && (!answered || mayRepeat())) {
          // Never reached a handler: safe anywhere. Reached one: only idempotent methods go again.
          if (launch('retry', `${instance.key}: ${error.message}`)) return;
          if (settled) return;
        }
        if (live.length === 0) settle(error);
      });
      return true;
    };

    if (callerCancelled(context)) {
      reject(callError(GrpcCode.CANCELLED, 'the call was cancelled before it was forwarded'));
      return;
    }
    if (!launch(undefined, '')) return;
    if (!settled) {
      watchCaller(context, cancelledByCaller);
      watching = true;
    }
    const hedgeDelay = f.policy.hedgeDelayMs;
    if (f.idempotent && hedgeDelay !== undefined && !settled) {
      const hedge = (): void => {
        hedgeTimer = undefined;
        if (settled || extra >= f.policy.hedgeMaxAttempts - 1 || !mayRepeat()) return;
        extra++;
        if (launch('hedge', `no answer after ${hedgeDelay} ms`)) hedgeTimer = setTimeout(hedge, hedgeDelay);
      };
      hedgeTimer = setTimeout(hedge, hedgeDelay);
    }
  });
}
