/**
 * Handler shapes derived from a method descriptor's streaming mode (spec 4.6):
 * unary → async function; server streaming → async generator; client
 * streaming → consumes an async iterable, returns one response; bidirectional
 * → async generator over an async iterable. Generated handler interfaces and
 * the runtime's `addService(descriptor, implementation)` both use these.
 */
import type { StreamingMode } from './descriptor';
import type { RequestContext } from '../core/request-context';

export type UnaryHandler<Req, Res> = (request: Req, context: RequestContext) => Promise<Res> | Res;
export type ServerStreamingHandler<Req, Res> = (request: Req, context: RequestContext) => AsyncIterable<Res>;
export type ClientStreamingHandler<Req, Res> = (requests: AsyncIterable<Req>, context: RequestContext) => Promise<Res> | Res;
export type BidiStreamingHandler<Req, Res> = (requests: AsyncIterable<Req>, context: RequestContext) => AsyncIterable<Res>;

export type HandlerFor<S extends StreamingMode, Req, Res> = S extends 'server'
  ? ServerStreamingHandler<Req, Res>
  : S extends 'client'
    ? ClientStreamingHandler<Req, Res>
    : S extends 'bidirectional'
      ? BidiStreamingHandler<Req, Res>
      : UnaryHandler<Req, Res>;

/** Any handler of any kind, for registries that hold them untyped. */
export type AnyHandler =
  | UnaryHandler<never, unknown>
  | ServerStreamingHandler<never, unknown>
  | ClientStreamingHandler<never, unknown>
  | BidiStreamingHandler<never, unknown>;

