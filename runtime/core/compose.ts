/**
 * The one middleware composer, shared by gRPC middleware and the gateway's
 * dispatch interceptors: onion order, each layer awaits `next()` and may
 * return or replace its result. Calling `next()` twice is a bug we report
 * instead of silently running the rest of the chain again.
 */
export type Middleware<C, R> = (ctx: C, next: () => Promise<R>) => Promise<R> | R;

export function compose<C, R>(layers: readonly Middleware<C, R>[], terminal: (ctx: C) => Promise<R> | R): (ctx: C) => Promise<R> {
  return function run(ctx: C): Promise<R> {
    let last = -1;
    const step = async (i: number): Promise<R> => {
      if (i <= last) throw new Error('next() called multiple times');
      last = i;
      const layer = layers[i];
      if (layer === undefined) return terminal(ctx);
      return layer(ctx, () => step(i + 1));
    };
    return step(0);
  };
}
