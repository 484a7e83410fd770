/**
 * `router.param(name, callback)` (and `app.param`), with Express 5's
 * semantics: before the handlers of a layer whose path captured `name`, the
 * router runs that name's callbacks in registration order as
 * `(req, res, next, value, name)`. Within one request and router each
 * callback list runs once per value: a later layer capturing the same value
 * skips them and gets the value they left in `req.params[name]`, so a
 * callback can convert the parameter (`'12'` → `12`) or load the resource it
 * names once. `next(error)` (or a throw, or a rejected promise) goes to the
 * error handlers, and the same value fails again without re-running (a
 * failure also stops the name's callbacks for other values);
 * `next('route')` skips the layer, and later ones with the same value.
 */
import type { FwRequest, ParamCallback as AnyParamCallback } from './request';
import type { FwResponse } from './response';
import type { NextFunction } from './types';

/** A `param()` callback of fw's routers: `res` is an `FwResponse`. */
export type ParamCallback = AnyParamCallback<FwResponse>;

/** What a router remembers of the callbacks already run for a name in one request. */
interface ParamRun {
  /** The captured value the callbacks ran for. */
  readonly match: string;
  /** `req.params[name]` as the callbacks left it. */
  value: unknown;
  /** The error they ended with (`'route'` counts as none for later layers). */
  error: unknown;
}

/** Per router and request: parameter name → the run for its last value. */
export type ParamRuns = Map<string, ParamRun>;

/**
 * Validates and registers a callback: what `router.param()` calls.
 * @throws TypeError for a name that is not a non-empty string (or starts with `:`) or a callback that is not a function.
 */
export function addParamCallback(registry: Map<string, ParamCallback[]>, name: unknown, callback: unknown): void {
  if (typeof name !== 'string' || name === '') throw new TypeError(`param(name, callback): name must be a non-empty string, got ${typeof name === 'string' ? "''" : typeof name}`);
  if (name.startsWith(':')) throw new TypeError(`param(${JSON.stringify(name)}, callback): the name has no leading ':'`);
  if (typeof callback !== 'function') throw new TypeError(`param(${JSON.stringify(name)}, callback): callback must be a function, got ${typeof callback}`);
  const list = registry.get(name);
  if (list === undefined) registry.set(name, [callback as ParamCallback]);
  else list.push(callback as ParamCallback);
}

interface Thenable { then(onFulfilled: undefined, onRejected: (reason: unknown) => void): unknown }

/**
 * Runs the callbacks for the parameters `keys` of one matched layer, in key
 * order, then calls `done(error?)` once.
 */
export function runParamCallbacks(
  registry: ReadonlyMap<string, readonly ParamCallback[]>,
  keys: readonly string[],
  runs: ParamRuns,
  req: FwRequest,
  res: FwResponse,
  done: (error?: unknown) => void,
): void {
  let k = 0;
  // Callbacks may store any value (a number, a loaded record); later handlers read it back.
  const params = req.params as Record<string, unknown>;

  const nextKey = (error?: unknown): void => {
    if (error !== undefined) {
      done(error);
      return;
    }
    while (k < keys.length) {
      const name = keys[k++]!;
      const value = params[name];
      const callbacks = registry.get(name);
      if (typeof value !== 'string' || callbacks === undefined) continue;
      const previous = runs.get(name);
      // Ran already for this value, or failed for another one: restore what it left, repeat its outcome.
      if (previous !== undefined && (previous.match === value || (previous.error !== undefined && previous.error !== 'route'))) {
        params[name] = previous.value;
        if (previous.error !== undefined) {
          done(previous.error);
          return;
        }
        continue;
      }
      const run: ParamRun = { match: value, value, error: undefined };
      runs.set(name, run);
      runCallbacks(callbacks, run, name, value);
      return;
    }
    done();
  };

  const runCallbacks = (callbacks: readonly ParamCallback[], run: ParamRun, name: string, value: string): void => {
    let i = 0;
    const step = (error?: unknown): void => {
      run.value = params[name];
      if (error !== undefined && error !== null) {
        run.error = error;
        nextKey(error);
        return;
      }
      const callback = callbacks[i++];
      if (callback === undefined) {
        nextKey();
        return;
      }
      // Each callback moves on once: a second `next()` from the same callback is ignored.
      let called = false;
      const next: NextFunction = (err?: unknown): void => {
        if (called) return;
        called = true;
        step(err);
      };
      try {
        const result = callback(req, res, next, value, name);
        if (result !== null && typeof result === 'object' && typeof (result as Partial<Thenable>).then === 'function') {
          (result as Thenable).then(undefined, (reason: unknown) => next(reason ?? new Error('param() callback rejected without a reason')));
        }
      } catch (thrown) {
        next(thrown ?? new Error('param() callback threw without a reason'));
      }
    };
    step();
  };

  nextKey();
}
