/**
 * Default credential extraction per protocol (spec 5.4): HTTP headers, gRPC
 * metadata, or the envelope's `auth` object on WebSocket/UDP/TCP.
 */
import type { Protocol } from '../../core/request-context';
import type { CredentialSource, TokenExtractors } from './types';

interface HeaderSource {
  headers: Record<string, string | string[] | undefined>;
}
interface MetadataSource {
  get(name: string): unknown[];
}
interface EnvelopeSource {
  auth?: { token?: unknown; apiKey?: unknown };
}

/** The token of `Bearer <token>`; any other scheme (or none) carries no bearer token. */
function stripBearer(value: string): string | undefined {
  if (value.length <= 7 || value.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = value.slice(7).trim();
  return token === '' ? undefined : token;
}

function header(source: CredentialSource, name: string): string | undefined {
  const h = (source as HeaderSource | null)?.headers?.[name];
  const v = Array.isArray(h) ? h[0] : h;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function metadata(source: CredentialSource, name: string): string | undefined {
  const get = (source as MetadataSource | null)?.get;
  if (typeof get !== 'function') return undefined;
  const v = get.call(source, name)[0];
  if (typeof v === 'string' && v !== '') return v;
  return Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
}

function envelope(source: CredentialSource, field: 'token' | 'apiKey'): string | undefined {
  const v = (source as EnvelopeSource | null)?.auth?.[field];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A bearer token (jwt, oauth). */
export function extractBearer(protocol: Protocol, source: CredentialSource, overrides: TokenExtractors | undefined): string | undefined {
  const custom = overrides?.[protocol];
  if (custom !== undefined) return custom(source);
  switch (protocol) {
    case 'http': {
      const v = header(source, 'authorization');
      return v === undefined ? undefined : stripBearer(v);
    }
    case 'grpc': {
      const v = metadata(source, 'authorization');
      return v === undefined ? undefined : stripBearer(v);
    }
    default:
      return envelope(source, 'token');
  }
}

/** An API key: the named header/metadata entry, or `auth.apiKey` (falling back to `auth.token`) in envelopes. */
export function extractApiKey(protocol: Protocol, source: CredentialSource, headerName: string, overrides: TokenExtractors | undefined): string | undefined {
  const custom = overrides?.[protocol];
  if (custom !== undefined) return custom(source);
  switch (protocol) {
    case 'http':
      return header(source, headerName);
    case 'grpc':
      return metadata(source, headerName);
    default:
      return envelope(source, 'apiKey') ?? envelope(source, 'token');
  }
}
