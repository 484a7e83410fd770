/**
 * Claim rules shared by the `jwt` and `oauth` providers on top of jose's own
 * checks: `exp` is required unless configured otherwise (a leaked token
 * without one is valid forever), and an `iat` later than now beyond the
 * clock tolerance is refused (jose checks that only with maxTokenAge).
 */
import type { JWTPayload } from 'jose';

/** The provider settings the rules read. */
export interface ClaimRules {
  /** Allowed clock skew in seconds; default 0. */
  clockTolerance?: number;
  /** Refuse tokens without `exp`; default true. */
  requireExpiration?: boolean;
}

/** jose verify options for the rules; throws a TypeError for a bad tolerance. */
export function claimOptions(rules: ClaimRules): { clockTolerance: number; requiredClaims: string[] } {
  const tolerance = rules.clockTolerance ?? 0;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) throw new TypeError('clockTolerance must be a non-negative number of seconds');
  return { clockTolerance: tolerance, requiredClaims: rules.requireExpiration === false ? [] : ['exp'] };
}

/** Throws when the token claims to be issued in the future. */
export function assertIssuedInPast(payload: JWTPayload, clockTolerance: number): void {
  if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + clockTolerance) throw new Error('"iat" claim lies in the future');
}
