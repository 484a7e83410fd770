/**
 * The `jwt` provider: jose verifies the signature (HS256 with a secret, or
 * RS/PS/ES/EdDSA with a public key), expiry, and audience/issuer when set.
 * Unsigned and `alg: none` tokens never verify: the accepted algorithm list
 * is fixed by configuration. `exp` is required unless `requireExpiration:
 * false`; an `iat` later than now (beyond `clockTolerance`) is refused.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { jwtVerify } from 'jose';
import type { Protocol } from '../../core/request-context';
import { extractBearer } from './extract';
import { assertIssuedInPast, claimOptions } from './jwt-claims';
import type { AuthProvider, CredentialSource, JwtProviderConfig } from './types';

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * @example
 * const jwt = createJwtProvider({ secret: 'change-me', algorithms: ['HS256'], audience: 'fw' });
 */
export function createJwtProvider(config: JwtProviderConfig): AuthProvider {
  let key: Uint8Array | KeyObject;
  let algorithms: string[];
  if (config.secret !== undefined) {
    if (config.secret === '') throw new TypeError('jwt.secret must not be empty');
    key = new TextEncoder().encode(config.secret);
    algorithms = config.algorithms ?? ['HS256'];
  } else if (config.publicKey !== undefined) {
    key = typeof config.publicKey === 'string' ? createPublicKey(config.publicKey) : config.publicKey;
    algorithms = config.algorithms ?? ASYMMETRIC;
  } else {
    throw new TypeError('jwt provider needs a secret or a publicKey');
  }
  if (algorithms.some((a) => a.toLowerCase() === 'none')) throw new TypeError('jwt algorithm "none" is never accepted');
  const options = { algorithms, audience: config.audience, issuer: config.issuer, ...claimOptions(config) };
  return {
    name: 'jwt',
    extract: (protocol: Protocol, source: CredentialSource) => extractBearer(protocol, source, config.extractToken),
    async verify(token: string): Promise<Record<string, unknown>> {
      const { payload } = await jwtVerify(token, key, options);
      assertIssuedInPast(payload, options.clockTolerance);
      return payload as Record<string, unknown>;
    },
  };
}
