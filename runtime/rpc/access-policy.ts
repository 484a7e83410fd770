/**
 * Authentication as the call core asks for it: a service's policy, the rule
 * of whether a call must carry credentials, and the authenticator seam the
 * gateway fills (its providers load JWT/OAuth libraries; the core never does).
 */
import type { AuthenticationInfo, RequestContext } from '../core/request-context';

/** Service-level authentication (spec 5.5). */
export interface ServiceAuthenticationConfig {
  /** When true (the default once this object is given) a call without valid credentials fails with 401. */
  required?: boolean;
  /** Provider names accepted for this service (`jwt`, `apikey`, `oauth`); default: the protocol's rule. */
  methods?: string[];
  /** Called after authentication; false → 403 PERMISSION_DENIED. */
  authorize?: (user: Record<string, unknown>, method: string, request: unknown) => boolean | Promise<boolean>;
}

/** Whatever a transport hands over for credentials to be read from (headers, a message envelope…). */
export type CredentialSource = unknown;

/** Reads and checks a call's credentials (the gateway's Authenticator). */
export interface CallAuthenticator {
  /** The caller's identity; undefined when none was sent and none is `required`; throws when refused. */
  authenticate(context: RequestContext, source: CredentialSource, required: boolean, methods: string[] | undefined): Promise<AuthenticationInfo | undefined>;
}

/** True when a call to this method must carry valid credentials. */
export function authenticationRequired(service: ServiceAuthenticationConfig | undefined, method: boolean | undefined): boolean {
  if (method !== undefined) return method;
  if (service === undefined) return false;
  return service.required !== false;
}
