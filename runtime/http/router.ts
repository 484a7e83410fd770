/**
 * `Router` (spec 4.3): route registration by method and path, `use()`
 * middleware and mounting, `route(path)` chains, and the route queries
 * (`getRoutes`, `hasRoute`, `getAllowedMethods`).
 *
 * Lookup structure, rebuilt lazily after any registration: a map keyed by
 * static paths and by the literal prefixes of dynamic patterns (`/api/users`
 * for `/api/users/:id`). A request looks up its path, then its parent paths
 * from the deepest a key can be, and takes the first hit: a list of every
 * layer that can match, already merged in definition order with the generic
 * layers, so definition order always wins and a 1000-route table costs a
 * couple of map lookups.
 */
import { Dispatch, type CandidateList, type DispatchHost } from './dispatch';
import { ALL, Layer, USE } from './layer';
import { addParamCallback, type ParamCallback } from './param-callbacks';
import { PathMatcher } from './path-pattern';
import { collectRoutes } from './route-info';
import type { FwRequest } from './request';
import type { FwResponse } from './response';
import type { AnyRouteHandler, ErrorHandler, MiddlewareHandler, NextFunction, PathPattern, RouteHandler, RouterOptions, RouteInfo } from './types';

/** A route-registration method: `(path, ...handlers)`, chainable. */
export interface RouteMethod<T> {
  (path: PathPattern, ...handlers: RouteHandler[]): T;
  (path: PathPattern, ...handlers: ErrorHandler[]): T;
  (path: PathPattern, ...handlers: (AnyRouteHandler | AnyRouteHandler[])[]): T;
}

/** A method of a `route(path)` chain: handlers only, chainable. */
export interface ChainMethod {
  (...handlers: RouteHandler[]): RouteChain;
  (...handlers: ErrorHandler[]): RouteChain;
  (...handlers: (AnyRouteHandler | AnyRouteHandler[])[]): RouteChain;
}

/** The chain `app.route(path)` returns. */
export interface RouteChain {
  get: ChainMethod;
  post: ChainMethod;
  put: ChainMethod;
  patch: ChainMethod;
  delete: ChainMethod;
  head: ChainMethod;
  options: ChainMethod;
  all: ChainMethod;
}

/** The methods `all()` stands for, and `getAllowedMethods` reports for it. */
export const STANDARD_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

type ChainHandlers = (AnyRouteHandler | AnyRouteHandler[])[];

interface KeyEntry {
  /** For a path equal to the key: its static routes (which match without testing) and the layers below. */
  exact: CandidateList;
  /** For a longer path: the same without the key's static routes. */
  below: CandidateList;
}

interface LookupTable {
  /** Normalised path or literal prefix → every layer that can match a path starting with it, in definition order. */
  keyed: Map<string, KeyEntry>;
  /** Layers that can match any path (`use(mw)`, RegExp routes, patterns starting with a parameter). */
  generic: CandidateList;
  /** Segments in the deepest key. */
  maxDepth: number;
  /** `keyLengths[n]` is 1 when some key is `n` characters long. */
  keyLengths: Uint8Array;
}

const SLASH = 47;

function byIndex(a: Layer, b: Layer): number {
  return a.index - b.index;
}

/**
 * A group of routes and middleware, mounted with `app.use(prefix, router)`.
 *
 * @example
 * import { server, Router } from 'fw';
 * const v1 = new Router({ mergeParams: true });
 * v1.get('/users/:id', (req, res) => res.json({ version: 1, id: req.params.id }));
 * const app = server.http().use('/api/v1', v1);
 */
export class Router implements DispatchHost {
  readonly caseSensitive: boolean;
  readonly strict: boolean;
  readonly mergeParams: boolean;
  /** `get(path, ...handlers)`: GET (and HEAD) route. */
  readonly get: RouteMethod<this>;
  readonly post: RouteMethod<this>;
  readonly put: RouteMethod<this>;
  readonly patch: RouteMethod<this>;
  readonly delete: RouteMethod<this>;
  readonly head: RouteMethod<this>;
  readonly options: RouteMethod<this>;
  /** A route for every method. */
  readonly all: RouteMethod<this>;
  readonly #layers: Layer[] = [];
  #table: LookupTable | null = null;
  #paramCallbacks: Map<string, ParamCallback[]> | null = null;

  constructor(options: RouterOptions = {}) {
    this.caseSensitive = options.caseSensitive === true;
    this.strict = options.strict === true;
    this.mergeParams = options.mergeParams === true;
    this.get = this.#method('GET');
    this.post = this.#method('POST');
    this.put = this.#method('PUT');
    this.patch = this.#method('PATCH');
    this.delete = this.#method('DELETE');
    this.head = this.#method('HEAD');
    this.options = this.#method('OPTIONS');
    this.all = this.#method(ALL);
  }

  #method(method: string): RouteMethod<this> {
    return (path: PathPattern, ...handlers: ChainHandlers): this => this.addRoute(method, path, handlers);
  }

  /** Registers a route for `method` (upper-case, or `ALL`); what `get`, `post`… call. */
  addRoute(method: string, path: PathPattern, handlers: ChainHandlers): this {
    const list = this.#checkHandlers(handlers, `${method.toLowerCase()}(${String(path)})`);
    const matcher = new PathMatcher(path, { caseSensitive: this.caseSensitive, strict: this.strict, prefix: false });
    this.#push(new Layer(method.toUpperCase(), path, matcher, list, null, this.#layers.length));
    return this;
  }

  /**
   * Middleware for every request (`use(mw)`) or under a path prefix
   * (`use('/api', mw)`, `use('/api/v1', router)`). Mounted handlers see
   * `req.url`/`req.path` without the prefix and the prefix in `req.baseUrl`.
   *
   * @example
   * app.use((req, res, next) => { res.header('X-Powered-By', 'fw'); next(); });
   * app.use('/api/v1', v1Router);
   * app.use((req, res) => res.status(404).json({ error: 'Not Found' }));
   */
  use(...handlers: (MiddlewareHandler | Router)[]): this;
  use(...handlers: ErrorHandler[]): this;
  use(path: PathPattern, ...handlers: (MiddlewareHandler | Router | (MiddlewareHandler | Router)[])[]): this;
  use(path: PathPattern, ...handlers: ErrorHandler[]): this;
  use(...args: unknown[]): this {
    const hasPath = typeof args[0] === 'string' || args[0] instanceof RegExp;
    const path = hasPath ? (args.shift() as PathPattern) : '/';
    const flat = args.flat();
    if (flat.length === 0) throw new TypeError(`use(${String(path)}) requires at least one middleware function or router`);
    const matcher = new PathMatcher(path, { caseSensitive: this.caseSensitive, strict: false, prefix: true });
    for (const item of flat) {
      if (item instanceof Router) {
        const mounted = item;
        const handler: MiddlewareHandler = (req, res, next) => mounted.handle(req, res, next);
        this.#push(new Layer(USE, path, matcher, [handler], mounted, this.#layers.length));
      } else if (typeof item === 'function') {
        this.#push(new Layer(USE, path, matcher, [item as AnyRouteHandler], null, this.#layers.length));
      } else {
        throw new TypeError(`use(${String(path)}) expects middleware functions or routers, got ${typeof item}`);
      }
    }
    return this;
  }

  /**
   * Runs `callback(req, res, next, value, name)` before the handlers of any
   * of this router's routes (or `use()` paths) that capture the parameter
   * `name` (or each of several names), once per request and value; it may
   * convert `req.params[name]` or load what it names (Express 5 semantics,
   * see docs/routing.md). Registering during a request counts from the next
   * matched layer on. Chainable.
   *
   * @example
   * app.param('id', (req, res, next, value) => {
   *   if (!/^\d+$/.test(value)) { next('route'); return; }
   *   (req.params as Record<string, unknown>).id = Number(value);
   *   next();
   * });
   */
  param(name: string | string[], callback: ParamCallback): this {
    const registry = (this.#paramCallbacks ??= new Map());
    for (const one of Array.isArray(name) ? name : [name]) addParamCallback(registry, one, callback);
    return this;
  }

  /** @internal The `param()` callbacks by name; null until one is registered. */
  get paramCallbacks(): ReadonlyMap<string, readonly ParamCallback[]> | null {
    return this.#paramCallbacks;
  }

  /**
   * A chain registering several methods on one path.
   *
   * @example
   * app.route('/users/:id').get(getUser).put(updateUser).delete(deleteUser);
   */
  route(path: PathPattern): RouteChain {
    const chain = {} as RouteChain;
    const add = (method: string): ChainMethod =>
      (...handlers: ChainHandlers): RouteChain => {
        this.addRoute(method, path, handlers);
        return chain;
      };
    chain.get = add('GET');
    chain.post = add('POST');
    chain.put = add('PUT');
    chain.patch = add('PATCH');
    chain.delete = add('DELETE');
    chain.head = add('HEAD');
    chain.options = add('OPTIONS');
    chain.all = add(ALL);
    return chain;
  }

  /**
   * Handles a request with this router; `next` continues in the parent (or,
   * at the top, the 404/405/error responses).
   */
  handle(req: FwRequest, res: FwResponse, next: NextFunction | null): void {
    new Dispatch(this, req, res, next).next();
  }

  /** Every registered route (`method` filters, case-insensitively), including those of mounted routers. */
  getRoutes(method?: string): RouteInfo[] {
    const routes = collectRoutes(this.#layers, '');
    if (method === undefined) return routes;
    const wanted = method.toUpperCase();
    return routes.filter((r) => r.method === wanted || r.method === ALL);
  }

  /** Whether a request `method path` would reach a route (a registered pattern also counts as a path). */
  hasRoute(method: string, path: string): boolean {
    const wanted = method.toUpperCase();
    if (this.getRoutes(wanted).some((r) => r.path === path)) return true;
    return this.routeMethodsFor(path).some((m) => m === wanted || m === ALL || (wanted === 'HEAD' && m === 'GET'));
  }

  /** Methods that have a route for `path`, in registration order (`all` routes count as every method). */
  getAllowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const m of this.routeMethodsFor(path)) {
      if (m === ALL) for (const s of STANDARD_METHODS) methods.add(s);
      else methods.add(m);
    }
    return [...methods];
  }

  /** Route methods matching a concrete path, looking into mounted routers. */
  routeMethodsFor(path: string): string[] {
    const pathname = path.split('?')[0] || '/';
    const raw = pathname.startsWith('/') ? pathname : '/' + pathname;
    const norm = !this.strict && raw.length > 1 && raw.endsWith('/') ? raw.slice(0, -1) : raw;
    const lower = this.caseSensitive ? norm : norm.toLowerCase();
    const rawLower = this.caseSensitive ? raw : raw.toLowerCase();
    const found: string[] = [];
    for (const layer of this.#layers) {
      if (layer.method === USE) {
        if (layer.router === null) continue;
        const end = layer.matcher.match(raw, rawLower);
        if (end >= 0) found.push(...layer.router.routeMethodsFor(raw.slice(end) || '/'));
      } else if (layer.matcher.match(norm, lower) >= 0) {
        found.push(layer.method);
      }
    }
    return found;
  }

  /** @internal Candidate layers for a normalised lookup key (see the module comment). */
  candidates(key: string): CandidateList {
    const table = this.#table ?? this.#compile();
    const keyed = table.keyed;
    const lengths = table.keyLengths;
    if (key.length < lengths.length && lengths[key.length] === 1) {
      const exact = keyed.get(key);
      if (exact !== undefined) return exact.exact;
    }
    // The deepest key that is a proper prefix of `key` ending at a slash.
    // Keys are at most `maxDepth` segments and `lengths.length - 1`
    // characters long, so start from there and walk up, hashing only
    // prefixes of a length some key has: a `/resource/:id` path hits on its
    // first lookup, and no path costs more than `maxDepth` lookups.
    const limit = Math.min(key.length, lengths.length);
    let end = -1;
    for (let i = 1, depth = 0; i < limit; i++) {
      if (key.charCodeAt(i) !== SLASH) continue;
      end = i;
      if (++depth === table.maxDepth) break;
    }
    while (end > 0) {
      if (lengths[end] === 1) {
        const hit = keyed.get(key.slice(0, end));
        if (hit !== undefined) return hit.below;
      }
      end = key.lastIndexOf('/', end - 1);
    }
    return table.generic;
  }

  /** @internal Called when no layer ended the response; a mounted router never gets here. */
  finalize(_req: FwRequest, res: FwResponse, error: unknown): void {
    if (error !== undefined) throw error;
    if (!res.headersSent) res.statusCode = 404;
    res.end();
  }

  /**
   * Changes how later patterns match (the app's `'strict routing'` and
   * `'case sensitive routing'` settings); only while nothing is registered,
   * since registered patterns were compiled with the old rules.
   */
  protected setMatching(change: { strict?: boolean; caseSensitive?: boolean }, setting: string): void {
    const current = change.strict !== undefined ? this.strict : this.caseSensitive;
    const wanted = change.strict ?? change.caseSensitive;
    if (current === wanted) return;
    if (this.#layers.length > 0) throw new Error(`set('${setting}') must come before the first route or middleware: the routes registered already keep the old rule`);
    const self = this as { strict: boolean; caseSensitive: boolean };
    if (change.strict !== undefined) self.strict = change.strict;
    if (change.caseSensitive !== undefined) self.caseSensitive = change.caseSensitive;
  }

  /** @internal Puts middleware ahead of every layer (the global middleware of `withOptions`). */
  insertFirst(handlers: MiddlewareHandler[]): void {
    const matcher = new PathMatcher('/', { caseSensitive: this.caseSensitive, strict: false, prefix: true });
    const previous = this.#layers.splice(0);
    for (const h of handlers) this.#layers.push(new Layer(USE, '/', matcher, [h], null, this.#layers.length));
    for (const l of previous) this.#layers.push(new Layer(l.method, l.pattern, l.matcher, l.handlers, l.router, this.#layers.length));
    this.#table = null;
  }

  #push(layer: Layer): void {
    this.#layers.push(layer);
    this.#table = null;
  }

  #checkHandlers(handlers: ChainHandlers, where: string): AnyRouteHandler[] {
    const list = handlers.flat();
    if (list.length === 0) throw new TypeError(`${where} requires at least one handler`);
    for (const h of list) if (typeof h !== 'function') throw new TypeError(`${where}: every handler must be a function, got ${typeof h}`);
    return list;
  }

  #compile(): LookupTable {
    const groups = new Map<string, Layer[]>();
    const generic: Layer[] = [];
    for (const layer of this.#layers) {
      const key = layer.matcher.staticPath ?? layer.matcher.literalPrefix;
      if (key === null) {
        generic.push(layer);
        continue;
      }
      const group = groups.get(key) ?? [];
      group.push(layer);
      groups.set(key, group);
    }
    // Ancestors of every key become keys too (see `candidates`).
    for (const key of [...groups.keys()]) {
      for (let slash = key.lastIndexOf('/'); slash > 0; slash = key.lastIndexOf('/', slash - 1)) {
        const ancestor = key.slice(0, slash);
        if (!groups.has(ancestor)) groups.set(ancestor, []);
      }
    }
    const keyed = new Map<string, KeyEntry>();
    let maxDepth = 0;
    for (const key of groups.keys()) {
      maxDepth = Math.max(maxDepth, key.split('/').length - 1);
      const list = [...generic];
      // Layers keyed at an ancestor of `key` can match below it; static routes only at their own key.
      for (let k = key, own = true; ; own = false) {
        for (const layer of groups.get(k) ?? []) if (own || layer.matcher.staticPath === null) list.push(layer);
        const slash = k.lastIndexOf('/');
        if (slash <= 0) break;
        k = k.slice(0, slash);
      }
      list.sort(byIndex);
      keyed.set(key, {
        exact: { layers: list, exact: true },
        below: { layers: list.filter((layer) => layer.matcher.staticPath !== key), exact: false },
      });
    }
    let longest = 0;
    for (const key of keyed.keys()) longest = Math.max(longest, key.length);
    const keyLengths = new Uint8Array(longest + 1);
    for (const key of keyed.keys()) keyLengths[key.length] = 1;
    const table: LookupTable = { keyed, generic: { layers: generic, exact: false }, maxDepth, keyLengths };
    this.#table = table;
    return table;
  }

  /** @internal The layers, for route listings. */
  get layers(): readonly Layer[] {
    return this.#layers;
  }
}
