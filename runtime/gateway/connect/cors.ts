/**
 * CORS for browser clients of Connect and gRPC-Web, through the `cors`
 * package: the allowed origins are the user's, the methods GET and POST,
 * and the request/response headers both protocols need (the list the
 * Connect CORS guide gives) plus fw's trace and error headers and whatever
 * the user adds (`Authorization` for bearer tokens, custom metadata).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';

/** `connect.cors`: which browser origins may call, and what else they may send and read. */
export interface WebRpcCorsConfig {
  /** `'*'`, one origin, a list, a RegExp, or a predicate. Required: there is no default origin. */
  allowedOrigins: string | RegExp | (string | RegExp)[] | ((origin: string) => boolean);
  /** Extra request headers a page may send (e.g. `Authorization`, `X-Api-Key`). */
  allowedHeaders?: string[];
  /** Extra response headers a page may read. */
  exposedHeaders?: string[];
  /** Send `Access-Control-Allow-Credentials: true` (cookies); never with `'*'`. */
  credentials?: boolean;
  /** Preflight cache lifetime in seconds; default 7200 (Chrome's cap). */
  maxAge?: number;
}

const REQUEST_HEADERS = [
  'Content-Type', 'Connect-Protocol-Version', 'Connect-Timeout-Ms', 'Connect-Content-Encoding', 'Connect-Accept-Encoding',
  'Grpc-Timeout', 'Grpc-Encoding', 'Grpc-Accept-Encoding', 'X-Grpc-Web', 'X-User-Agent', 'X-Trace-ID', 'Traceparent',
];
const RESPONSE_HEADERS = [
  'Grpc-Status', 'Grpc-Message', 'Grpc-Status-Details-Bin', 'Content-Encoding', 'Connect-Content-Encoding', 'X-Trace-ID', 'X-Error-Code', 'X-Error-Details',
];

/** A `(req, res, next)` CORS handler; preflights end with 204. */
export type CorsHandler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** Builds the CORS handler for `config`; throws a TypeError on a config without origins. */
export function webRpcCors(config: WebRpcCorsConfig): CorsHandler {
  const origins = config.allowedOrigins;
  if (origins === undefined || origins === null || (Array.isArray(origins) && origins.length === 0)) {
    throw new TypeError('connect.cors.allowedOrigins is required (an origin, a list, a RegExp, a predicate or "*")');
  }
  if (origins === '*' && config.credentials === true) throw new TypeError('connect.cors: credentials cannot be combined with allowedOrigins "*"');
  const origin: cors.CorsOptions['origin'] =
    typeof origins === 'function' ? (o, cb) => cb(null, o !== undefined && origins(o)) : (origins as string | RegExp | (string | RegExp)[]);
  return cors({
    origin,
    methods: ['GET', 'POST'],
    allowedHeaders: [...REQUEST_HEADERS, ...(config.allowedHeaders ?? [])],
    exposedHeaders: [...RESPONSE_HEADERS, ...(config.exposedHeaders ?? [])],
    credentials: config.credentials === true,
    maxAge: config.maxAge ?? 7200,
    optionsSuccessStatus: 204,
  }) as unknown as CorsHandler;
}
