/**
 * Validation and defaults for `withOptions` (spec 4.2), and how they map onto
 * `node:http`. Timeouts are milliseconds; defaults from DESIGN "Defaults that
 * keep users safe".
 */
import bytes from 'bytes';
import type { Server } from 'node:http';
import { validateHostingOptions } from './gateway-hosting';
import { checkProductionOptions } from '../workers/production-options';
import type { HttpServerOptions } from './types';

/** Default `headersTimeout`, ms. */
export const DEFAULT_HEADERS_TIMEOUT = 60_000;
/** Default `requestTimeout`, ms. */
export const DEFAULT_REQUEST_TIMEOUT = 120_000;
/** Default `keepAliveTimeout`, ms (Node's own default). */
export const DEFAULT_KEEP_ALIVE_TIMEOUT = 5_000;
/** Default `maxRequestBodySize`. */
export const DEFAULT_MAX_REQUEST_BODY_SIZE = '1mb';

function fail(key: string, expected: string, value: unknown): never {
  throw new TypeError(`withOptions(): ${key} must be ${expected}, got ${JSON.stringify(value) ?? typeof value}`);
}

function checkNumber(key: string, value: unknown, integer = false): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    fail(key, integer ? 'a non-negative integer' : 'a non-negative number', value);
  }
}

function checkBoolean(key: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') fail(key, 'a boolean', value);
}

/** Parses a size such as `'1mb'` or `'512kb'` into bytes; throws a clear error otherwise. */
export function parseByteSize(key: string, value: string | number): number {
  const parsed = typeof value === 'number' ? value : bytes.parse(value);
  if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed < 0) fail(key, "a size such as '1mb' or '512kb'", value);
  return parsed;
}

/** Throws a `TypeError` naming the first invalid option. */
export function validateOptions(options: HttpServerOptions): void {
  if (options === null || typeof options !== 'object') fail('options', 'an object', options);
  if (options.port !== undefined && (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)) fail('port', 'an integer from 0 to 65535', options.port);
  if (options.hostname !== undefined && typeof options.hostname !== 'string') fail('hostname', 'a string', options.hostname);
  checkBoolean('keepAlive', options.keepAlive);
  checkNumber('keepAliveTimeout', options.keepAliveTimeout);
  checkNumber('headersTimeout', options.headersTimeout);
  checkNumber('requestTimeout', options.requestTimeout);
  checkBoolean('development.hmr', options.development?.hmr);
  checkBoolean('development.console', options.development?.console);
  if (options.maxRequestBodySize !== undefined) parseByteSize('maxRequestBodySize', options.maxRequestBodySize);
  checkNumber('compression.threshold', options.compression?.threshold);
  checkNumber('compression.level', options.compression?.level, true);
  checkNumber('rateLimit.windowMs', options.rateLimit?.windowMs);
  checkNumber('rateLimit.max', options.rateLimit?.max, true);
  const origin = options.cors?.origin;
  if (origin !== undefined && typeof origin !== 'string' && !(Array.isArray(origin) && origin.every((o) => typeof o === 'string'))) {
    fail('cors.origin', 'a string or a list of strings', origin);
  }
  checkBoolean('cors.credentials', options.cors?.credentials);
  validateHostingOptions(options);
  checkProductionOptions(options);
  const headers = options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT;
  const request = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  // node:http refuses headersTimeout > requestTimeout (0 disables the request timeout).
  if (request !== 0 && headers > request) fail('headersTimeout', `at most requestTimeout (${request})`, headers);
}

/** The `http.createServer` options the HTTP options imply. */
export function serverConstructorOptions(options: HttpServerOptions): { keepAlive: boolean; requestTimeout: number; headersTimeout: number; noDelay: boolean } {
  return {
    keepAlive: options.keepAlive !== false,
    requestTimeout: options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT,
    headersTimeout: options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT,
    noDelay: true,
  };
}

type TimeoutProperties = Pick<Server, 'keepAliveTimeout' | 'requestTimeout' | 'headersTimeout'> & { connectionsCheckingInterval?: number };

/**
 * How often Node should check a server's header and request timeouts. Node
 * checks every `connectionsCheckingInterval` (30 s by default), so a
 * slowloris client was closed up to 30 s after `headersTimeout`; the check
 * runs every second (and at least twice per shortest timeout), which makes
 * the documented bound `headersTimeout` + 1 s. A check walks the open
 * connections once: cheap next to the connections themselves.
 */
export function timeoutCheckInterval(shortestTimeout: number): number {
  return Math.max(50, Math.min(TIMEOUT_CHECK_SLACK, Math.floor(shortestTimeout / 2)));
}

/** The most a connection can outlive its header or request timeout (ms). */
export const TIMEOUT_CHECK_SLACK = 1000;

/**
 * Applies the timeouts to a server (they are plain properties there), checked
 * every {@link timeoutCheckInterval}. Takes effect for a server that has not
 * started listening.
 */
export function applyTimeouts(server: TimeoutProperties, options: HttpServerOptions): void {
  server.keepAliveTimeout = options.keepAliveTimeout ?? DEFAULT_KEEP_ALIVE_TIMEOUT;
  server.requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  server.headersTimeout = options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT;
  const shortest = Math.min(server.headersTimeout || Infinity, server.requestTimeout || Infinity);
  server.connectionsCheckingInterval = timeoutCheckInterval(shortest);
}
