/**
 * Whether a call must carry credentials. Apart from the Authenticator (and
 * the JWT/OAuth libraries it loads) so that dispatch can ask without loading them.
 */
import type { ServiceAuthenticationConfig } from '../types';

/** True when a call to this method must carry valid credentials. */
export function authenticationRequired(service: ServiceAuthenticationConfig | undefined, method: boolean | undefined): boolean {
  if (method !== undefined) return method;
  if (service === undefined) return false;
  return service.required !== false;
}
