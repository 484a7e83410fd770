/**
 * The standard `grpc.health.v1.Health` service (spec 4.7): `Check` answers the
 * status of a named service, or of the whole server for `''`; `Watch` sends
 * the current status at once, again on every change, and every
 * `healthWatchIntervalMs` (spec: 5000 ms) until the caller goes away.
 * Unknown services follow the standard protocol: `Check` fails NOT_FOUND,
 * `Watch` reports SERVICE_UNKNOWN. Health bypasses middleware so probes need
 * no credentials.
 */
import { EventEmitter, once } from 'node:events';
import { GrpcStatus } from '../core/status';
import type { MethodDescriptor } from '../rpc/descriptor';
import { GrpcError } from './errors';
import { HEALTH_DESCRIPTOR, type HealthCheckRequest } from './health-descriptor';
import type { Invoker, ServiceBinding } from './method-binding';
import { reflectionEntry } from './reflection-entry';
import { descriptorMethodBinding } from './service-forms';

/** What `setServingStatus` accepts (spec 3: SERVING / NOT_SERVING). */
export type ServingStatus = 'SERVING' | 'NOT_SERVING';

/** Fully-qualified name of the health service. */
export const HEALTH_SERVICE_NAME = 'grpc.health.v1.Health';

/** Per-service serving status, observable by Watch. */
export class HealthState {
  readonly #statuses = new Map<string, ServingStatus>([['', 'SERVING']]);
  readonly #changes = new EventEmitter();
  #closing = new AbortController();
  readonly #ready: () => boolean;

  /** `ready`: whether the server as a whole (`''`) may report SERVING (a gateway still waiting for discovery may not). */
  constructor(ready: () => boolean = () => true) {
    this.#changes.setMaxListeners(0);
    this.#ready = ready;
  }

  set(service: string, status: ServingStatus): void {
    if (status !== 'SERVING' && status !== 'NOT_SERVING') throw new TypeError(`serving status must be SERVING or NOT_SERVING, got ${String(status)}`);
    if (this.#statuses.get(service) === status) return;
    this.#statuses.set(service, status);
    this.#changes.emit('change', service);
  }

  /** Status of `service` (full name, or the short name of a registered service); undefined when unknown. */
  get(service: string): ServingStatus | undefined {
    if (service === '' && !this.#ready()) return 'NOT_SERVING';
    const exact = this.#statuses.get(service);
    if (exact !== undefined) return exact;
    for (const [name, status] of this.#statuses) if (name.endsWith(`.${service}`)) return status;
    return undefined;
  }

  /** Every service NOT_SERVING, Watch streams told and left open (the drain delay: probes see it while calls are still served). */
  notServing(): void {
    for (const name of [...this.#statuses.keys()]) this.set(name, 'NOT_SERVING');
  }

  /** Every service NOT_SERVING and all Watch streams ended (server shutdown). */
  shutdown(): void {
    this.notServing();
    this.#closing.abort();
  }

  /** Back to SERVING after a shutdown, for an app that listens again. */
  restart(): void {
    if (!this.#closing.signal.aborted) return;
    this.#closing = new AbortController();
    for (const name of [...this.#statuses.keys()]) this.set(name, 'SERVING');
  }

  get closingSignal(): AbortSignal {
    return this.#closing.signal;
  }

  get changes(): EventEmitter {
    return this.#changes;
  }
}

/** The health service binding over `state`; it bypasses middleware so probes need no credentials. */
export function bindHealth(state: HealthState, watchIntervalMs: () => number): ServiceBinding {
  const methods = HEALTH_DESCRIPTOR.methods;
  const check: Invoker = (call) => {
    const service = (call.request as HealthCheckRequest).service;
    const status = state.get(service);
    if (status === undefined) throw new GrpcError(GrpcStatus.NOT_FOUND, `Unknown service ${service}`);
    return { status };
  };
  const watching: Invoker = (call) => watch(state, (call.request as HealthCheckRequest).service, watchIntervalMs(), call.signal);
  return {
    name: HEALTH_SERVICE_NAME,
    methods: [descriptorMethodBinding(HEALTH_DESCRIPTOR, methods.check as MethodDescriptor, check), descriptorMethodBinding(HEALTH_DESCRIPTOR, methods.watch as MethodDescriptor, watching)].map((m) => ({ ...m, skipMiddleware: true })),
    packageDefinition: reflectionEntry(HEALTH_DESCRIPTOR),
  };
}

async function* watch(state: HealthState, service: string, intervalMs: number, signal: AbortSignal): AsyncGenerator<{ status: string }> {
  const stop = AbortSignal.any([signal, state.closingSignal]);
  let last = state.get(service) ?? 'SERVICE_UNKNOWN';
  yield { status: last };
  while (!stop.aborted) {
    const timer = AbortSignal.any([stop, AbortSignal.timeout(intervalMs)]);
    try {
      // Wake on a change to this service, on the interval, or when the call or server ends. Several
      // services can change in one turn (close() sets them all) and `once` hears only the first, so
      // the status is compared rather than the event's name.
      for (;;) {
        await once(state.changes, 'change', { signal: timer });
        if ((state.get(service) ?? 'SERVICE_UNKNOWN') !== last) break;
      }
    } catch {
      if (signal.aborted) return;
      // The server is closing: its change to this service may have come in the same turn as another's, so say it now.
      if (stop.aborted) {
        const final = state.get(service) ?? 'SERVICE_UNKNOWN';
        if (final !== last) yield { status: final };
        return;
      }
    }
    last = state.get(service) ?? 'SERVICE_UNKNOWN';
    yield { status: last };
  }
}
