/**
 * Walks one router's layers for one request, Express-style: `next()` moves to
 * the next matching handler, `next(error)` to the next error handler,
 * `next('route')` past the rest of the route, `next('router')` out of the
 * router. A rejected promise from a handler is `next(error)`.
 *
 * The candidate layers come pre-filtered from the router's lookup table (a
 * static-path hit or the bucket of the first path segment, merged in
 * definition order), so a request looks at a handful of layers however many
 * routes exist.
 */
import type { Layer } from './layer';
import { runParamCallbacks, type ParamCallback, type ParamRuns } from './param-callbacks';
import { createRouteParams, type FwRequest, type RouteParams } from './request';
import type { FwResponse } from './response';
import type { AnyRouteHandler, ErrorHandler, NextFunction, RouteHandler } from './types';

/** Layers that may match a path, in definition order. */
export interface CandidateList {
  readonly layers: readonly Layer[];
  /** The list is for exactly this path, so its static routes match without testing. */
  readonly exact: boolean;
}

const NO_CANDIDATES: CandidateList = { layers: [], exact: false };

/** What a dispatch needs from its router. */
export interface DispatchHost {
  readonly caseSensitive: boolean;
  readonly strict: boolean;
  readonly mergeParams: boolean;
  /** The `param()` callbacks by parameter name; null until one is registered. */
  readonly paramCallbacks: ReadonlyMap<string, readonly ParamCallback[]> | null;
  /** Candidate layers, in definition order, for a normalised (and, unless case-sensitive, lower-cased) path. */
  candidates(key: string): CandidateList;
  /** Called when the router has no more layers and no parent to return to. */
  finalize(req: FwRequest, res: FwResponse, error: unknown): void;
}

interface Thenable { then(onFulfilled: undefined, onRejected: (reason: unknown) => void): unknown }

/** One router's walk over its layers for one request (see the module comment). */
export class Dispatch {
  readonly next: NextFunction;
  readonly #host: DispatchHost;
  readonly #req: FwRequest;
  readonly #res: FwResponse;
  readonly #out: NextFunction | null;
  readonly #parentParams: RouteParams;
  #list: readonly Layer[] = [];
  #exact = false;
  #i = 0;
  #layer: Layer | null = null;
  #h = 0;
  /** End of the current `use()` prefix in the mount-relative path, 0 for none. */
  #mountEnd = 0;
  #rawUrl = '';
  #path = '';
  #lower = '';
  #rawPath = '';
  #rawLower = '';
  #savedRaw: string | null = null;
  #savedBase = '';
  #onReject: ((reason: unknown) => void) | null = null;
  /** The `param()` callbacks already run in this request, created on first use. */
  #paramRuns: ParamRuns | null = null;

  constructor(host: DispatchHost, req: FwRequest, res: FwResponse, out: NextFunction | null) {
    this.#host = host;
    this.#req = req;
    this.#res = res;
    this.#out = out;
    this.#parentParams = req.params;
    this.next = (error?: unknown): void => this.#step(error);
    this.#readPath();
  }

  /** Recomputes the paths and candidate list (at start, and after a middleware rewrote `req.url`). */
  #readPath(): void {
    const req = this.#req;
    this.#rawUrl = req.rawUrl;
    const raw = req.path;
    const host = this.#host;
    const path = !host.strict && raw.length > 1 && raw.charCodeAt(raw.length - 1) === 47 ? raw.slice(0, -1) : raw;
    let rawLower = raw;
    if (!host.caseSensitive) {
      rawLower = raw.toLowerCase();
      // Some Unicode lower-cases to a different length; match those case-sensitively.
      if (rawLower.length !== raw.length) rawLower = raw;
    }
    this.#rawPath = raw;
    this.#rawLower = rawLower;
    this.#path = path;
    this.#lower = path.length === raw.length ? rawLower : rawLower.slice(0, path.length);
    const lastIndex = this.#i === 0 ? -1 : this.#list[this.#i - 1]!.index;
    const candidates = raw.charCodeAt(0) === 47 ? host.candidates(this.#lower) : NO_CANDIDATES;
    this.#list = candidates.layers;
    this.#exact = candidates.exact;
    let i = 0;
    while (i < this.#list.length && this.#list[i]!.index <= lastIndex) i++;
    this.#i = i;
  }

  #step(error: unknown): void {
    const req = this.#req;
    if (this.#savedRaw !== null) {
      req.setRawUrl(this.#savedRaw);
      req.baseUrl = this.#savedBase;
      this.#savedRaw = null;
    }
    let err = error;
    if (err === 'route') {
      err = undefined;
      this.#layer = null;
    } else if (err === 'router') {
      this.#finish(undefined);
      return;
    }
    if (req.rawUrl !== this.#rawUrl) this.#readPath();

    const layer = this.#layer;
    if (layer !== null && this.#runNextHandler(layer, err)) return;

    const list = this.#list;
    const method = req.method;
    while (this.#i < list.length) {
      const candidate = list[this.#i++]!;
      if (!candidate.accepts(method)) continue;
      if (err === undefined ? !candidate.hasNormalHandler : !candidate.hasErrorHandler) continue;
      const isUse = candidate.method === '';
      // Candidates come from the lookup table, which has already compared their literal prefix.
      const end = isUse
        ? candidate.matcher.matchAfterPrefix(this.#rawPath, this.#rawLower)
        : this.#exact && candidate.matcher.staticPath !== null ? this.#path.length : candidate.matcher.matchAfterPrefix(this.#path, this.#lower);
      if (end < 0) continue;
      if (candidate.hasParams || this.#host.mergeParams) {
        const params = createRouteParams();
        if (this.#host.mergeParams) Object.assign(params, this.#parentParams);
        try {
          candidate.matcher.captureParams(params);
        } catch (decodeError) {
          err = decodeError;
          continue;
        }
        req.params = params;
      } else {
        req.params = this.#parentParams;
      }
      this.#layer = candidate;
      this.#h = 0;
      this.#mountEnd = isUse ? end : 0;
      const callbacks = this.#host.paramCallbacks;
      if (callbacks !== null && candidate.hasParams) {
        this.#runParamCallbacks(callbacks, candidate, err);
        return;
      }
      if (this.#runNextHandler(candidate, err)) return;
    }
    this.#layer = null;
    this.#finish(err);
  }

  /** Runs the `param()` callbacks for the parameters `layer` captured, then its handlers (Express: `next(layerError || paramError)` on failure). */
  #runParamCallbacks(callbacks: ReadonlyMap<string, readonly ParamCallback[]>, layer: Layer, err: unknown): void {
    runParamCallbacks(callbacks, layer.matcher.keys, (this.#paramRuns ??= new Map()), this.#req, this.#res, (paramError?: unknown) => {
      if (paramError !== undefined) this.next(err ?? paramError);
      else if (!this.#runNextHandler(layer, err)) this.next(err);
    });
  }

  /** Runs the next handler of `layer` suited to the error state; false when none is left. */
  #runNextHandler(layer: Layer, err: unknown): boolean {
    const handlers = layer.handlers;
    const takesError = layer.takesError;
    while (this.#h < handlers.length) {
      const i = this.#h++;
      const fn = handlers[i]!;
      if (takesError[i] !== (err !== undefined)) continue;
      if (this.#mountEnd > 0) this.#stripMount();
      this.#req.setPathFormUrl(layer.isMiddleware);
      this.#call(fn, err);
      return true;
    }
    return false;
  }

  /** Express mount semantics: the mounted handler sees the URL without the prefix, and the prefix in `baseUrl`. */
  #stripMount(): void {
    const req = this.#req;
    const raw = req.rawUrl;
    this.#savedRaw = raw;
    this.#savedBase = req.baseUrl;
    const rest = raw.slice(this.#mountEnd);
    req.setRawUrl(rest.charCodeAt(0) === 47 ? rest : '/' + rest);
    req.baseUrl = this.#savedBase + this.#rawPath.slice(0, this.#mountEnd);
  }

  #call(fn: AnyRouteHandler, err: unknown): void {
    try {
      const result: unknown = err === undefined
        ? (fn as RouteHandler)(this.#req, this.#res, this.next)
        : (fn as ErrorHandler)(err, this.#req, this.#res, this.next);
      if (result !== null && typeof result === 'object' && typeof (result as Partial<Thenable>).then === 'function') {
        this.#onReject ??= (reason: unknown): void => this.next(reason ?? new Error('Handler rejected without a reason'));
        (result as Thenable).then(undefined, this.#onReject);
      }
    } catch (thrown) {
      this.next(thrown ?? new Error('Handler threw without a reason'));
    }
  }

  #finish(err: unknown): void {
    const req = this.#req;
    req.params = this.#parentParams;
    if (this.#out !== null) this.#out(err);
    else this.#host.finalize(req, this.#res, err);
  }
}
