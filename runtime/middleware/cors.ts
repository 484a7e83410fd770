/**
 * `cors(options)`: the `cors` package with the spec's option names
 * (`origin`, `methods`, `credentials`) and its other options passed through.
 */
import corsPackage from 'cors';
import type { ConnectHandler } from './types';

/** Options of {@link cors} (spec 4.2, 4.5). */
export interface CorsOptions {
  /** Allowed origin(s); `'*'` (default) allows any; a RegExp or list of them matches origins. */
  origin?: string | RegExp | ReadonlyArray<string | RegExp> | boolean;
  /** Methods a preflight allows. Default GET, HEAD, PUT, PATCH, POST, DELETE. */
  methods?: string | readonly string[];
  /** Send `Access-Control-Allow-Credentials: true`. Needs an explicit origin. */
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
  const origin = options.origin;
  return corsPackage({
    origin: Array.isArray(origin) ? [...(origin as ReadonlyArray<string | RegExp>)] : (origin as string | RegExp | boolean | undefined),
    methods: mutable(options.methods),
    credentials: options.credentials,
    allowedHeaders: mutable(options.allowedHeaders),
    exposedHeaders: mutable(options.exposedHeaders),
    maxAge: options.maxAge,
    preflightContinue: options.preflightContinue,
    optionsSuccessStatus: options.optionsSuccessStatus,
  }) as ConnectHandler;
}
