/**
 * The seam through which the call core reaches methods it does not host:
 * the gateway's service discovery implements it, the core only asks.
 */
import type { RequestContext } from '../core/request-context';
import type { StreamingMode } from './descriptor';

/** A remote handler found through discovery, called exactly like a local one. */
export interface RemoteMethod {
  streaming: StreamingMode;
  handler: (request: unknown, context: RequestContext) => unknown;
  /** The same method forwarding protobuf bytes as they are (RawMessage in, RawMessage out), when its wire is protobuf. */
  passThrough?: (request: unknown, context: RequestContext) => unknown;
}

/** Looks up services the core does not host itself (service discovery). */
export interface RemoteServiceResolver {
  /** The method, or undefined when the service/method is not discovered. */
  resolve(service: string, method: string): RemoteMethod | undefined;
  /** Resolves once every discovered service has its first instance list (or its provider's start timeout passed). */
  ready?(): Promise<void>;
  /** Readiness detail for `GET /ready`. */
  status?(): { ready: boolean; services: Record<string, unknown> };
  close(): Promise<void>;
}
