/**
 * The `/health` and `/ready` conventions of spec 4.11 as ready-made route
 * handlers. They are plain `(req, res)` handlers, so they mount on an fw app,
 * on Express, or on a bare `node:http` server alike.
 *
 * - health: 200 `{status: 'ok', timestamp, uptime?, memory?, version?}`:
 *   the process is up and answering (liveness).
 * - ready: 200 `{status: 'ready'}` when the application's check passes, else
 *   503 `{status: 'not ready', error}` (readiness: take me out of the load
 *   balancer until my dependencies are back).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface HealthOptions {
  /** Reported as `version` (e.g. your package version). Omitted when unset. */
  version?: string;
  /** Add `uptime` (seconds since the process started). Default true. */
  uptime?: boolean;
  /** Add `memory` (process.memoryUsage(): rss, heapTotal, heapUsed, external, arrayBuffers in bytes). Default true. */
  memory?: boolean;
}

export interface HealthBody {
  status: 'ok';
  /** ISO 8601. */
  timestamp: string;
  uptime?: number;
  memory?: NodeJS.MemoryUsage;
  version?: string;
}

export interface ReadinessOptions {
  /** A check slower than this counts as failed. Default 5000 ms. */
  timeoutMs?: number;
}

/**
 * What decides readiness: resolve (or return) nothing or `true` when ready;
 * return `false` or throw when not (the error message becomes `error`).
 */
export type ReadinessCheck = () => boolean | void | Promise<boolean | void>;

type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.setHeader('Cache-Control', 'no-store');
  res.end(text);
}

/** The body `GET /health` answers with. */
export function healthBody(options: HealthOptions = {}): HealthBody {
  const body: HealthBody = { status: 'ok', timestamp: new Date().toISOString() };
  if (options.uptime !== false) body.uptime = process.uptime();
  if (options.memory !== false) body.memory = process.memoryUsage();
  if (options.version !== undefined) body.version = options.version;
  return body;
}

/**
 * `GET /health` handler.
 *
 * @example
 * import { server, healthCheck } from 'fw';
 * const app = server.http();
 * app.get('/health', healthCheck({ version: '1.4.0' }));
 * // → 200 {"status":"ok","timestamp":"…","uptime":12.3,"memory":{…},"version":"1.4.0"}
 */
export function healthCheck(options: HealthOptions = {}): RouteHandler {
  return (_req, res) => sendJson(res, 200, healthBody(options));
}

/** Runs `check` with a timeout; resolves to undefined when ready, else the reason. */
export async function runReadinessCheck(check: ReadinessCheck, options: ReadinessOptions = {}): Promise<string | undefined> {
  const timeoutMs = options.timeoutMs ?? 5000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`readiness check timed out after ${timeoutMs} ms`), timeoutMs);
    timer.unref();
  });
  try {
    const outcome = Promise.resolve()
      .then(check)
      .then(
        (result) => (result === false ? 'readiness check failed' : undefined),
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    return await Promise.race([outcome, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** True when the request's app (an fw app, `req.app`) has begun shutting down (its drain delay). */
function appStopping(req: IncomingMessage): boolean {
  const app = (req as IncomingMessage & { app?: { stopping?: unknown } }).app;
  return app?.stopping === true;
}

/**
 * `GET /ready` handler around the application's own check. Once the fw app
 * begins shutting down it answers 503 `shutting down` without running the
 * check, so load balancers stop sending during the drain delay.
 *
 * @example
 * import { server, readinessCheck } from 'fw';
 * const app = server.http();
 * app.get('/ready', readinessCheck(async () => { await db.ping(); }));
 * // → 200 {"status":"ready"}, or 503 {"status":"not ready","error":"connect ECONNREFUSED …"}
 */
export function readinessCheck(check: ReadinessCheck, options: ReadinessOptions = {}): RouteHandler {
  return (req, res) => {
    if (appStopping(req)) {
      sendJson(res, 503, { status: 'not ready', error: 'shutting down' });
      return;
    }
    void runReadinessCheck(check, options).then((error) => {
      if (error === undefined) sendJson(res, 200, { status: 'ready' });
      else sendJson(res, 503, { status: 'not ready', error });
    });
  };
}
