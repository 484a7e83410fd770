/**
 * Applies authentication around dispatch: which providers a protocol accepts
 * (`rules`), which a service accepts (`authentication.methods`), whether the
 * call needs credentials at all (service `required`, method `authentication`),
 * and the service's `authorize(user, method, request)` policy.
 */
import type { AuthenticationInfo, Protocol, RequestContext } from '../../core/request-context';
import { ServiceErrors } from '../errors';
import { createApiKeyProvider } from './apikey-provider';
import { createJwtProvider } from './jwt-provider';
import { createOAuthProvider } from './oauth-provider';
import type { AuthenticationConfig, AuthProvider, CredentialSource } from './types';

/** Verifies credentials for dispatch: provider order from `rules`, narrowed by the service's `methods`. */
export class Authenticator {
  readonly #providers = new Map<string, AuthProvider>();
  readonly #rules: Partial<Record<Protocol, string[]>>;

  constructor(config: AuthenticationConfig) {
    if (config === null || typeof config !== 'object' || config.providers === null || typeof config.providers !== 'object') {
      throw new TypeError('configureAuthentication needs { providers }');
    }
    const p = config.providers;
    if (p.jwt !== undefined) this.#providers.set('jwt', createJwtProvider(p.jwt));
    if (p.apikey !== undefined) this.#providers.set('apikey', createApiKeyProvider(p.apikey));
    if (p.oauth !== undefined) this.#providers.set('oauth', createOAuthProvider(p.oauth));
    this.#rules = config.rules ?? {};
    for (const [protocol, names] of Object.entries(this.#rules)) {
      for (const name of names ?? []) {
        if (!this.#providers.has(name)) throw new TypeError(`rules.${protocol} names provider "${name}" which is not configured`);
      }
    }
  }

  /** Providers to try for this protocol and service, in rule order. */
  #candidates(protocol: Protocol, serviceMethods: string[] | undefined): AuthProvider[] {
    const names = this.#rules[protocol] ?? [...this.#providers.keys()];
    const out: AuthProvider[] = [];
    for (const name of names) {
      if (serviceMethods !== undefined && !serviceMethods.includes(name)) continue;
      const provider = this.#providers.get(name);
      if (provider !== undefined) out.push(provider);
    }
    return out;
  }

  /**
   * Verifies the call's credentials. Resolves to the AuthenticationInfo, or
   * undefined when none were presented and none are required; rejects with
   * 401 UNAUTHENTICATED otherwise.
   */
  async authenticate(
    context: RequestContext,
    source: CredentialSource,
    required: boolean,
    serviceMethods: string[] | undefined,
  ): Promise<AuthenticationInfo | undefined> {
    let presented = false;
    for (const provider of this.#candidates(context.protocol, serviceMethods)) {
      let credential: string | undefined;
      try {
        credential = provider.extract(context.protocol, source);
      } catch {
        credential = undefined;
      }
      if (credential === undefined) continue;
      presented = true;
      try {
        const user = await provider.verify(credential, context);
        return { provider: provider.name, user, token: credential };
      } catch {
        // Try the next accepted provider; report once all have refused.
      }
    }
    if (presented) throw ServiceErrors.unauthenticated('Invalid or expired credentials');
    if (required) throw ServiceErrors.unauthenticated('Authentication required');
    return undefined;
  }
}
