/**
 * One entry of a router's stack: a route (method + whole-path pattern) or a
 * `use()` entry (prefix pattern, possibly a mounted router). Layers keep their
 * definition index so that every lookup structure can restore definition order
 * (spec 4.3 rule 6).
 */
import { PathMatcher } from './path-pattern';
import type { AnyRouteHandler, PathPattern } from './types';

/** `method` of a `use()` layer. */
export const USE = '';
/** `method` of an `all()` route. */
export const ALL = 'ALL';

/** What a layer needs from a router mounted with `use(path, router)`. */
export interface MountedRouter {
  readonly layers: readonly Layer[];
  routeMethodsFor(path: string): string[];
}

/** A route or `use()` entry of a router's stack. */
export class Layer {
  /** Upper-case method, `ALL`, or `USE` ('') for middleware. */
  readonly method: string;
  /** The pattern as registered. */
  readonly pattern: PathPattern;
  readonly matcher: PathMatcher;
  readonly handlers: AnyRouteHandler[];
  /** The mounted router, for `use(path, router)`. */
  readonly router: MountedRouter | null;
  /** Position in the router's stack. */
  readonly index: number;
  readonly hasParams: boolean;
  /** A `use()` entry: its handlers see Express's path-form `req.url` (docs/http.md). */
  readonly isMiddleware: boolean;
  /** Per handler: whether it takes four arguments (an error handler); read once, `Function#length` is a slow accessor. */
  readonly takesError: readonly boolean[];
  /** Whether any handler takes four arguments (runs only with an error). */
  readonly hasErrorHandler: boolean;
  /** Whether any handler takes fewer than four (runs only without an error). */
  readonly hasNormalHandler: boolean;

  constructor(method: string, pattern: PathPattern, matcher: PathMatcher, handlers: AnyRouteHandler[], router: MountedRouter | null, index: number) {
    this.method = method;
    this.pattern = pattern;
    this.matcher = matcher;
    this.handlers = handlers;
    this.router = router;
    this.index = index;
    this.hasParams = matcher.keys.length > 0;
    this.isMiddleware = method === USE;
    this.takesError = handlers.map((h) => h.length === 4);
    this.hasErrorHandler = this.takesError.includes(true);
    this.hasNormalHandler = this.takesError.includes(false);
  }

  /** Whether this layer serves `method` (HEAD is served by GET routes). */
  accepts(method: string): boolean {
    const own = this.method;
    return own === USE || own === ALL || own === method || (method === 'HEAD' && own === 'GET');
  }
}
