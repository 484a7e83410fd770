/**
 * The `apikey` provider: reads `X-API-Key` (or the configured header) over
 * HTTP and gRPC metadata, `auth.apiKey`/`auth.token` in envelopes, and asks
 * the application's `validate(apiKey, context)`.
 */
import type { Protocol, RequestContext } from '../../core/request-context';
import { extractApiKey } from './extract';
import type { ApiKeyProviderConfig, AuthProvider, CredentialSource } from './types';

/**
 * @example
 * const apikey = createApiKeyProvider({ header: 'X-API-Key', validate: (key) => keys.has(key) });
 */
export function createApiKeyProvider(config: ApiKeyProviderConfig): AuthProvider {
  if (typeof config.validate !== 'function') throw new TypeError('apikey provider needs validate(apiKey, context)');
  const headerName = (config.header ?? 'X-API-Key').toLowerCase();
  return {
    name: 'apikey',
    extract: (protocol: Protocol, source: CredentialSource) => extractApiKey(protocol, source, headerName, config.extractToken),
    async verify(apiKey: string, context: RequestContext): Promise<Record<string, unknown>> {
      const verdict = await config.validate(apiKey, context);
      if (verdict === true) return { apiKey: `${apiKey.slice(0, 4)}…` };
      if (verdict !== null && typeof verdict === 'object') return verdict;
      throw new Error('invalid API key');
    },
  };
}
