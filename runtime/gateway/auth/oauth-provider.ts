/**
 * The `oauth` provider: OIDC discovery on the issuer
 * (`/.well-known/openid-configuration` → `jwks_uri`), then jose's remote JWKS
 * (cached, refetched on unknown `kid`) verifies access tokens for the
 * configured issuer and audience. Discovery runs once, on first use, and is
 * retried after a failure.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Protocol } from '../../core/request-context';
import { extractBearer } from './extract';
import { assertIssuedInPast, claimOptions } from './jwt-claims';
import type { AuthProvider, CredentialSource, OAuthProviderConfig } from './types';

interface DiscoveryDocument {
  issuer?: unknown;
  jwks_uri?: unknown;
}

async function discover(issuer: string): Promise<JWTVerifyGetKey> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!response.ok) throw new Error(`OIDC discovery failed: ${url} answered ${response.status}`);
  const doc = (await response.json()) as DiscoveryDocument;
  if (typeof doc.jwks_uri !== 'string') throw new Error(`OIDC discovery: ${url} has no jwks_uri`);
  return createRemoteJWKSet(new URL(doc.jwks_uri));
}

/**
 * @example
 * const oauth = createOAuthProvider({ issuer: 'https://auth.example.com', audience: 'api' });
 */
export function createOAuthProvider(config: OAuthProviderConfig): AuthProvider {
  if (typeof config.issuer !== 'string' || config.issuer === '') throw new TypeError('oauth provider needs an issuer URL');
  let jwks: Promise<JWTVerifyGetKey> | undefined;
  const keys = (): Promise<JWTVerifyGetKey> => {
    if (jwks === undefined) {
      jwks = discover(config.issuer);
      jwks.catch(() => {
        jwks = undefined;
      });
    }
    return jwks;
  };
  const options = {
    issuer: config.issuer,
    audience: config.audience,
    algorithms: config.algorithms ?? ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'],
    ...claimOptions(config),
  };
  return {
    name: 'oauth',
    extract: (protocol: Protocol, source: CredentialSource) => extractBearer(protocol, source, config.extractToken),
    async verify(token: string): Promise<Record<string, unknown>> {
      const { payload } = await jwtVerify(token, await keys(), options);
      assertIssuedInPast(payload, options.clockTolerance);
      return payload as Record<string, unknown>;
    },
  };
}
