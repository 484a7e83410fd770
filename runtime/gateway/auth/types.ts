/**
 * Authentication configuration (spec part 5) and the provider contract every
 * provider (jwt, apikey, oauth) implements.
 */
import type { KeyObject } from 'node:crypto';
import type { Protocol, RequestContext } from '../../core/request-context';

/**
 * Where a transport's credentials come from, as handed to `extractToken`:
 * http → the IncomingMessage; grpc → grpc-js Metadata; websocket/udp/tcp → the
 * decoded message envelope.
 */
import type { CredentialSource } from '../../rpc/access-policy';
export type { CredentialSource };

/** Per-protocol token extraction overrides. */
export type TokenExtractors = Partial<Record<Protocol, (source: CredentialSource) => string | undefined>>;

/** `providers.jwt`: a shared secret (HS256/384/512) or a public key (RS, PS, ES or EdDSA algorithms). */
export interface JwtProviderConfig {
  /** Shared secret for HS256/384/512. */
  secret?: string;
  /** Public key (PEM or KeyObject) for RS*, PS*, ES*, EdDSA. */
  publicKey?: string | KeyObject;
  /** Accepted algorithms; default `['HS256']` with a secret, the common asymmetric ones with a public key. */
  algorithms?: string[];
  audience?: string | string[];
  issuer?: string | string[];
  /** Allowed clock skew in seconds (for `exp`, `nbf` and a future `iat`); default 0. */
  clockTolerance?: number;
  /** Refuse tokens without an `exp` claim; default true. */
  requireExpiration?: boolean;
  extractToken?: TokenExtractors;
}

/** `providers.apikey`: a header name and the application's `validate`. */
export interface ApiKeyProviderConfig {
  /** HTTP header carrying the key; default `X-API-Key` (gRPC: the same name as metadata). */
  header?: string;
  /**
   * True when the key exists and is active. May instead return the principal
   * (an object) to expose as `context.authentication.user`.
   */
  validate: (apiKey: string, context: RequestContext) => boolean | Record<string, unknown> | Promise<boolean | Record<string, unknown>>;
  extractToken?: TokenExtractors;
}

/** `providers.oauth`: an OIDC issuer whose JWKS verifies access tokens. */
export interface OAuthProviderConfig {
  /** Issuer URL; `{issuer}/.well-known/openid-configuration` must name a `jwks_uri`. */
  issuer: string;
  audience?: string | string[];
  algorithms?: string[];
  /** Allowed clock skew in seconds (for `exp`, `nbf` and a future `iat`); default 0. */
  clockTolerance?: number;
  /** Refuse tokens without an `exp` claim; default true. */
  requireExpiration?: boolean;
  extractToken?: TokenExtractors;
}

/** The providers of `configureAuthentication`, by name. */
export interface AuthProvidersConfig {
  jwt?: JwtProviderConfig;
  apikey?: ApiKeyProviderConfig;
  oauth?: OAuthProviderConfig;
}

/**
 * `configureAuthentication({providers, rules})`.
 *
 * @example
 * gateway.configureAuthentication({
 *   providers: { jwt: { secret: process.env.JWT_SECRET!, algorithms: ['HS256'] } },
 *   rules: { http: ['jwt'], websocket: ['jwt'], grpc: ['jwt'], udp: ['apikey'], tcp: ['apikey'] },
 * });
 */
export interface AuthenticationConfig {
  providers: AuthProvidersConfig;
  /** Protocol → accepted provider names, tried in order. Default: every configured provider. */
  rules?: Partial<Record<Protocol, string[]>>;
}

/** What every provider implements. */
export interface AuthProvider {
  readonly name: string;
  /** The credential this provider reads from a transport's source, if any. */
  extract(protocol: Protocol, source: CredentialSource): string | undefined;
  /** The verified principal; throws (any error) when the credential is not acceptable. */
  verify(credential: string, context: RequestContext): Promise<Record<string, unknown>>;
}
