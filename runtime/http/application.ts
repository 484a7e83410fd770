/**
 * `FwApplication`: the root router plus the server around it — options,
 * `listen`/`close`, the fetch handler, native routes, and the final 404 / 405
 * / error responses (spec 4.1–4.4, 7.2).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pinTickObjectShape } from '../core/tick-object-pin';
import { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from './fetch-handler';
import { sendError, sendNotFound, type ErrorLogger } from './final-handler';
import { portHostFactory, type PortHost } from './gateway-hosting';
import { ForbiddenQueryKeyError, forbiddenQueryKey } from './query-guard';
import { nativeRouteEntries } from './native-routes';
import { FwRequest } from './request';
import { FwResponse } from './response';
import { Router, type RouteMethod } from './router';
import { compileTrust, type TrustFunction, type TrustProxySetting } from './trust-proxy';
import { applyTimeouts, DEFAULT_MAX_REQUEST_BODY_SIZE, parseByteSize, serverConstructorOptions, validateOptions } from './server-options';
import { globalMiddlewareFactory } from './global-middleware';
import type { AnyRouteHandler, HttpServerOptions, MiddlewareHandler, NativeRoutes, PathPattern } from './types';
import { drainDelay, envHost, envPort } from '../workers/production-options';
import { listenInProduction } from '../workers/production-listen';
import { streamSharing } from '../workers/port-sharing';
import type { WorkerSupervisor, WorkersAddress } from '../workers/supervisor';

/** `app.get`: a GET route, or with a single string argument an application setting (as in Express). */
export interface ApplicationGet<T> extends RouteMethod<T> {
  (setting: string): unknown;
}

/** Options of `app.close()`. */
export interface CloseOptions {
  /** After this many ms, connections still busy are cut. Default 10 000. */
  graceMs?: number;
}

/** The node:http server of an application. */
export type FwServer = Server<typeof FwRequest, typeof FwResponse>;

const DEFAULT_PORT = 3000;
/** Options turned into global middleware once, when the app starts serving. */
const GLOBAL_KEYS = ['cors', 'compression', 'rateLimit', 'maxRequestBodySize'] as const;
const DEFAULT_GRACE_MS = 10_000;

/**
 * An HTTP application (spec 4.1). Create it with `server.http()`.
 *
 * @example
 * import { server } from 'fw';
 * const app = server.http().withOptions({ hostname: '127.0.0.1' });
 * app.get('/hello/:name', (req, res) => res.json({ hello: req.params.name }));
 * await app.listen(3000);
 * // ... later
 * await app.close();
 */
export class FwApplication extends Router {
  declare readonly get: ApplicationGet<this>;
  /** The settings `set()` stores, by name (Express's `app.settings`); fw acts on those in docs/http.md, "Settings". */
  readonly settings: Record<string, unknown> = defaultSettings();
  /** Application-wide values for middleware and templates (Express's `app.locals`); `locals.settings` is `settings`. */
  readonly locals: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, { settings: this.settings });
  #options: HttpServerOptions = {};
  #maxRequestBodySize = parseByteSize('maxRequestBodySize', DEFAULT_MAX_REQUEST_BODY_SIZE);
  #server: FwServer | null = null;
  #prepared = false;
  #closing: Promise<void> | null = null;
  #logger: ErrorLogger = console;
  #trustProxy: TrustFunction | null = null;
  /** The gateway's port listener, set on the first `listen` with gateway options (`websocket`, `grpc`, `udp`, `tcp`). */
  #hosted: PortHost | null = null;
  /** In the cluster primary of `workers`: the supervisor, and where its workers listen. */
  #supervisor: WorkerSupervisor | null = null;
  #supervised: WorkersAddress | null = null;
  #stopping = false;

  /**
   * The `(req, res)` listener the application's server uses. Requests must be
   * `FwRequest`/`FwResponse` (`http.createServer({ IncomingMessage: FwRequest,
   * ServerResponse: FwResponse }, app.handleRequest)`).
   */
  readonly handleRequest: (req: IncomingMessage, res: ServerResponse) => void;

  constructor() {
    super();
    const routeGet = this.get;
    const get = (pathOrSetting: PathPattern, ...handlers: AnyRouteHandler[]): unknown =>
      handlers.length === 0 && typeof pathOrSetting === 'string' ? this.set(pathOrSetting) : routeGet(pathOrSetting, ...handlers);
    (this as { get: unknown }).get = get;
    this.handleRequest = (req, res) => this.#entry(req as FwRequest, res as FwResponse);
  }

  /**
   * Sets an application setting (read back with `app.get(name)` or
   * `app.set(name)`); chainable. As in Express, `'trust proxy'` takes
   * Express's values (see docs/http.md) and makes `req.ip`, `req.protocol`
   * and `req.hostname` honour `X-Forwarded-*` from the trusted proxies;
   * `'strict routing'` and `'case sensitive routing'` apply to routes
   * registered after them, so they must come before the first route or
   * middleware (an `Error` otherwise).
   *
   * @example
   * app.set('trust proxy', 'loopback');
   * app.set('json spaces', 2);      // stored, for middleware that reads it
   * app.get('json spaces');         // 2
   */
  set(setting: string): unknown;
  set(setting: string, value: unknown): this;
  set(setting: string, ...value: unknown[]): unknown {
    if (typeof setting !== 'string') throw new TypeError(`set(name, value): name must be a string, got ${typeof setting}`);
    if (value.length === 0) return this.settings[setting];
    const next = value[0];
    if (setting === 'trust proxy') this.#trustProxy = compileTrust(next as TrustProxySetting | undefined);
    else if (setting === 'strict routing') this.setMatching({ strict: Boolean(next) }, setting);
    else if (setting === 'case sensitive routing') this.setMatching({ caseSensitive: Boolean(next) }, setting);
    this.settings[setting] = next;
    return this;
  }

  /** Whether a setting is truthy (`app.enabled('trust proxy')`). */
  enabled(setting: string): boolean {
    return Boolean(this.set(setting));
  }

  /** Whether a setting is falsy. */
  disabled(setting: string): boolean {
    return !this.set(setting);
  }

  /** `set(setting, true)`; chainable. */
  enable(setting: string): this {
    return this.set(setting, true);
  }

  /** `set(setting, false)`; chainable. */
  disable(setting: string): this {
    return this.set(setting, false);
  }

  /** The compiled `trust proxy` setting; null when no proxy is trusted (the default). */
  get trustProxy(): TrustFunction | null {
    return this.#trustProxy;
  }

  /**
   * Server options (spec 4.2); merged into those set before; chainable.
   * Throws a `TypeError` naming an invalid option.
   *
   * @example
   * server.http().withOptions({ hostname: '127.0.0.1', headersTimeout: 30_000, maxRequestBodySize: '2mb' });
   */
  withOptions(options: HttpServerOptions): this {
    validateOptions(options);
    if (this.#prepared && GLOBAL_KEYS.some((key) => options[key] !== undefined)) {
      throw new Error(`withOptions(): ${GLOBAL_KEYS.join(', ')} must be set before listen(), createFetchHandler() or the first request`);
    }
    const merged: HttpServerOptions = { ...this.#options, ...options };
    if (options.development !== undefined) merged.development = { ...this.#options.development, ...options.development };
    this.#options = merged;
    if (merged.maxRequestBodySize !== undefined) this.#maxRequestBodySize = parseByteSize('maxRequestBodySize', merged.maxRequestBodySize);
    if (this.#server !== null) applyTimeouts(this.#server, merged);
    return this;
  }

  /** The options set so far. */
  get serverOptions(): Readonly<HttpServerOptions> {
    return this.#options;
  }

  /** `maxRequestBodySize` in bytes (default 1 MiB), for body-parsing middleware. */
  get maxRequestBodySize(): number {
    return this.#maxRequestBodySize;
  }

  /** Where unexpected errors are logged (default `console`); chainable. */
  withLogger(logger: ErrorLogger): this {
    this.#logger = logger;
    return this;
  }

  /**
   * Serves fetch-style native routes alongside the registered routes (spec 4.3).
   *
   * @example
   * app.withRoutes({
   *   '/native/:id': (request) => Response.json({ id: request.params.id }),
   *   '/items': { GET: () => Response.json([]), POST: async (r) => Response.json(await r.json(), { status: 201 }) },
   *   '/page': '<h1>static</h1>',
   * });
   */
  withRoutes(routes: NativeRoutes): this {
    if (routes === null || typeof routes !== 'object') throw new TypeError('withRoutes() expects an object mapping paths to handlers');
    for (const path of Object.keys(routes)) {
      for (const entry of nativeRouteEntries(path, routes[path]!)) this.addRoute(entry.method, path, [entry.handler]);
    }
    return this;
  }

  /** The node:http server (created on first use with the current options). */
  get server(): FwServer {
    if (this.#server === null) {
      const server = createServer({ IncomingMessage: FwRequest, ServerResponse: FwResponse, ...serverConstructorOptions(this.#options) }, this.handleRequest);
      applyTimeouts(server, this.#options);
      this.#server = server;
    }
    return this.#server;
  }

  /**
   * Starts listening (port: argument, else `withOptions({port})`, else 3000;
   * 0 picks a free port — read it from `app.port`). Resolves once listening.
   */
  listen(port?: number, hostname?: string): Promise<this> {
    let chosen: number;
    try {
      chosen = port ?? this.#options.port ?? envPort(DEFAULT_PORT);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    if (!Number.isInteger(chosen) || chosen < 0 || chosen > 65535) {
      return Promise.reject(new TypeError(`listen(): port must be an integer from 0 to 65535, got ${String(chosen)}`));
    }
    return listenInProduction({
      options: this.#options,
      shutdownTimeoutMs: () => DEFAULT_GRACE_MS,
      stoppable: this.#stoppable,
      bind: async (assigned) => {
        await this.#listenHere(assigned.port ?? chosen, hostname ?? this.#options.hostname ?? envHost(undefined));
        const address = this.address();
        return { host: address?.address ?? '', port: address?.port, udpPort: assigned.udpPort };
      },
    }).then(({ address, supervisor }) => {
      // The cluster primary of `workers` serves nothing itself: its address is where the workers listen.
      if (supervisor !== undefined) {
        this.#supervisor = supervisor;
        this.#supervised = address;
      }
      return this;
    });
  }

  /** What fw drains on SIGTERM/SIGINT (and, in a worker, on the supervisor's word) before the process exits. */
  readonly #stoppable = { shutdown: (): Promise<void> => this.close() };

  #listenHere(chosen: number, hostname: string | undefined): Promise<this> {
    const server = this.server;
    this.#prepare();
    this.#closing = null;
    this.#stopping = false;
    pinTickObjectShape();
    const hostFactory = this.#hosted === null ? portHostFactory(this.#options) : undefined;
    if (hostFactory !== undefined) this.#hosted = hostFactory(server, () => this.#options);
    if (this.#hosted !== null) return this.#listenHosted(this.#hosted, chosen, hostname);
    return new Promise<this>((resolve, reject) => {
      const onError = (error: Error): void => {
        server.off('listening', onListening);
        reject(error);
      };
      const onListening = (): void => {
        server.off('error', onError);
        if (this.#options.development?.console === true) console.log(`fw listening on ${this.url}`);
        resolve(this);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      // A worker on Linux binds the port itself beside the others (reusePort); elsewhere node:cluster shares it.
      server.listen({ port: chosen, host: hostname, ...streamSharing() });
    });
  }

  /** Listening with gateway transports on the same port (docs/gateway.md). */
  async #listenHosted(hosted: PortHost, port: number, hostname: string | undefined): Promise<this> {
    await hosted.listen(port, hostname);
    if (this.#options.development?.console === true) console.log(`fw listening on ${this.url}`);
    return this;
  }

  /** The bound address, or null before `listen`. */
  address(): AddressInfo | null {
    const supervised = this.#supervised;
    if (supervised !== null) return supervised.port === undefined ? null : { address: supervised.host, port: supervised.port, family: supervised.host.includes(':') ? 'IPv6' : 'IPv4' };
    if (this.#hosted !== null) return this.#hosted.address();
    const address = this.#server?.address();
    return address !== null && typeof address === 'object' ? address : null;
  }

  /** The bound port, or 0 before `listen`. */
  get port(): number {
    return this.address()?.port ?? 0;
  }

  /** `http://host:port` of the listening server. */
  get url(): string {
    const address = this.address();
    if (address === null) return '';
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  /**
   * Graceful shutdown: stops accepting connections, lets in-flight requests
   * finish (closing keep-alive connections as they go idle), then resolves.
   * Connections still busy after `graceMs` are cut.
   */
  close(options: CloseOptions = {}): Promise<void> {
    const supervisor = this.#supervisor;
    if (supervisor !== null) {
      this.#closing ??= supervisor.close().then(() => {
        this.#supervised = null;
        this.#supervisor = null;
        this.#closing = null;
      });
      return this.#closing;
    }
    const delay = drainDelay(this.#options.drainDelay);
    if (delay > 0 && this.#closing === null && this.address() !== null) {
      // The preStop window: readiness is false and requests are served as usual, then the drain.
      this.#closing = new Promise<void>((resolve) => {
        this.#stopping = true;
        setTimeout(resolve, delay);
      }).then(() => {
        this.#closing = null;
        return this.#drain(options);
      });
      return this.#closing;
    }
    return this.#drain(options);
  }

  /**
   * True from the start of a shutdown with `drainDelay` until the drain is
   * done: `readinessCheck()` answers 503 then, so load balancers stop sending.
   */
  get stopping(): boolean {
    return this.#stopping;
  }

  #drain(options: CloseOptions): Promise<void> {
    const server = this.#server;
    const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.#stopping = true;
    if (this.#hosted !== null) {
      if (this.#closing === null && this.#hosted.listening) this.#closing = this.#hosted.close(graceMs);
      return this.#closing ?? Promise.resolve();
    }
    if (server === null || !server.listening) return this.#closing ?? Promise.resolve();
    if (this.#closing !== null) return this.#closing;
    this.#closing = new Promise<void>((resolve, reject) => {
      // Responses finishing on keep-alive connections leave them idle: close those promptly.
      const sweep = setInterval(() => server.closeIdleConnections(), 25);
      const force = setTimeout(() => server.closeAllConnections(), graceMs);
      server.close((error) => {
        clearInterval(sweep);
        clearTimeout(force);
        if (error !== undefined) reject(error);
        else resolve();
      });
      server.closeIdleConnections();
    });
    return this.#closing;
  }

  /**
   * A function from a standard `Request` to a standard `Response`, running the
   * whole application in-process (spec 4.1).
   *
   * @example
   * const fetch = app.createFetchHandler();
   * const response = await fetch(new Request('http://localhost/hello'));
   * console.log(response.status, await response.json());
   */
  createFetchHandler(options?: FetchHandlerOptions): FetchHandler {
    this.#prepare();
    return createFetchHandler(() => this.server, options);
  }

  /** Installs what `withOptions` asked for ahead of every route, once. */
  #prepare(): void {
    if (this.#prepared) return;
    this.#prepared = true;
    if (!GLOBAL_KEYS.some((key) => this.#options[key] !== undefined)) return;
    // Loaded only when asked for: an app without these options never loads cors, compression, rate limiting.
    const handlers = globalMiddlewareFactory()(this.#options);
    if (handlers.length > 0) this.insertFirst([...handlers]);
  }

  #entry(req: FwRequest, res: FwResponse): void {
    if (!this.#prepared) this.#prepare();
    req.originalUrl = req.rawUrl;
    req.app = this;
    req.res = res;
    res.app = this;
    if (this.#options.keepAlive === false || this.#closing !== null) res.shouldKeepAlive = false;
    if (this.#options.development?.console === true) logWhenFinished(req, res);
    const forbidden = forbiddenQueryKey(req);
    if (forbidden !== undefined) {
      sendError(req, res, new ForbiddenQueryKeyError(forbidden), this.#logger);
      return;
    }
    this.handle(req, res, null);
  }

  /** @internal */
  override finalize(req: FwRequest, res: FwResponse, error: unknown): void {
    if (error !== undefined) {
      sendError(req, res, error, this.#logger);
      return;
    }
    sendNotFound(req, res, this.getAllowedMethods(req.originalUrl));
  }
}

/** Express 5's defaults, where fw behaves that way; `x-powered-by` and `etag` are off because fw sends neither. */
function defaultSettings(): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, {
    env: process.env.NODE_ENV ?? 'development',
    'query parser': 'simple',
    'subdomain offset': 2,
    'trust proxy': false,
    'strict routing': false,
    'case sensitive routing': false,
    'x-powered-by': false,
    etag: false,
  });
}

function logWhenFinished(req: FwRequest, res: FwResponse): void {
  const started = process.hrtime.bigint();
  res.once('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`${req.method} ${req.originalUrl} ${res.statusCode} ${ms.toFixed(1)}ms`);
  });
}

/** Creates an HTTP application; what `server.http()` calls. */
export function createHttpApplication(): FwApplication {
  return new FwApplication();
}
