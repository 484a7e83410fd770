/**
 * Every decision discovery and forwarding take on their own, as one event
 * shape: the gateway turns them into `fw_gateway_discovery_events_total`
 * (monitoring) and warnings; `onEvent` in the discovery options sees them all.
 */

export type DiscoveryDecision =
  /** A failed attempt sent again to another instance. */
  | 'retry'
  /** Another attempt of an idempotent call, sent while the first one is still out. */
  | 'hedge'
  /** An instance skipped because its in-flight cap was reached (all skipped: the call fails RESOURCE_EXHAUSTED). */
  | 'bulkhead_full'
  /** A call ended at its forwarding deadline. */
  | 'deadline_exceeded'
  /** No instance could take a call. */
  | 'no_instance'
  | 'circuit_open'
  | 'circuit_half_open'
  | 'circuit_closed'
  /** An instance with calls in flight did not answer a liveness ping. */
  | 'instance_unresponsive'
  /** The discovery backend (etcd, Consul, DNS) could not be reached; serving goes on with the last-known instances. */
  | 'backend_lost'
  | 'backend_restored';

export interface DiscoveryEvent {
  service: string;
  decision: DiscoveryDecision;
  /** `host:port`, when one instance is concerned. */
  instance: string | undefined;
  reason: string;
}

export type DiscoveryEventListener = (event: DiscoveryEvent) => void;

/** Decisions worth a log line each (the rest are per call: metrics only). */
export const LOGGED_DECISIONS: ReadonlySet<DiscoveryDecision> = new Set([
  'circuit_open', 'circuit_half_open', 'circuit_closed', 'instance_unresponsive', 'backend_lost', 'backend_restored',
]);
