/**
 * `cors(options)`: the `cors` package with the spec's option names
 * (`origin`, `methods`, `credentials`) and its other options passed through.
 */
import corsPackage from 'cors';
import { assertSafeCors } from '../core/cors-policy';
import type { ConnectHandler } from './types';

/** Options of {@link cors} (spec 4.2, 4.5). */
export interface CorsOptions {
  /** Allowed origin(s); `'*'` (default) allows any; a RegExp or list of them matches origins. */
  origin?: string | RegExp | ReadonlyArray<string | RegExp> | boolean;
  /** Methods a preflight allows. Default GET, HEAD, PUT, PATCH, POST, DELETE. */
  methods?: string | readonly string[];
  /** Send `Access-Control-Allow-Credentials: true`. Needs an explicit origin: with `'*'` (the default) cors() throws. */
  credentials?: boolean;
  /** Request headers a preflight allows; default: those the preflight asks for. */
  allowedHeaders?: string | readonly string[];
  /** Response headers the browser may read. */
  exposedHeaders?: string | readonly string[];
  /** Seconds a preflight may be cached. */
  maxAge?: number;
  /** Pass preflight requests on to the next handler instead of answering 204. */
  preflightContinue?: boolean;
  /** Status of an answered preflight. Default 204. */
  optionsSuccessStatus?: number;
}

const mutable = <T>(value: T | readonly T[] | undefined): T | T[] | undefined =>
  Array.isArray(value) ? [...(value as readonly T[])] : (value as T | undefined);

/**
 * Cross-origin resource sharing headers and preflight answers.
 *
 * @example
 * import { cors } from 'fw/middleware';
 * app.use(cors({ origin: ['https://app.example.com'], credentials: true }));
 */
export function cors(options: CorsOptions = {}): ConnectHandler {
  assertSafeCors(options, 'cors()');
  // cors merges options over its defaults with Object.assign: an explicit
  // undefined would erase a default, so only set keys are passed.
  const settings: corsPackage.CorsOptions = {};
  const origin = options.origin;
  if (origin !== undefined) settings.origin = Array.isArray(origin) ? [...(origin as ReadonlyArray<string | RegExp>)] : (origin as string | RegExp | boolean);
  if (options.methods !== undefined) settings.methods = mutable(options.methods);
  if (options.credentials !== undefined) settings.credentials = options.credentials;
  if (options.allowedHeaders !== undefined) settings.allowedHeaders = mutable(options.allowedHeaders);
  if (options.exposedHeaders !== undefined) settings.exposedHeaders = mutable(options.exposedHeaders);
  if (options.maxAge !== undefined) settings.maxAge = options.maxAge;
  if (options.preflightContinue !== undefined) settings.preflightContinue = options.preflightContinue;
  if (options.optionsSuccessStatus !== undefined) settings.optionsSuccessStatus = options.optionsSuccessStatus;
  return corsPackage(settings) as ConnectHandler;
}
