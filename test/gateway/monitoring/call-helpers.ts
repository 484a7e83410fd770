/** Builds DispatchCall objects and runs them through an interceptor, as the gateway core does. */
import { Writable } from 'node:stream';
import { CollectedCallMetadata, incomingFromHeaders } from '../../../runtime/core/call-metadata';
import { compose } from '../../../runtime/core/compose';
import type { Protocol, RequestContext } from '../../../runtime/core/request-context';
import type { DispatchCall, DispatchInterceptor } from '../../../runtime/gateway/extension-points';
import type { StreamingMode } from '../../../runtime/rpc/descriptor';
import { TransportCall } from '../../../runtime/rpc/transport-call';

let nextClient = 0;

export function makeContext(protocol: Protocol, extra: Partial<RequestContext> = {}): RequestContext {
  nextClient++;
  return {
    protocol,
    client: { id: `client-${nextClient}`, address: '127.0.0.1', port: 40000 + nextClient, userAgent: protocol === 'http' ? 'test-agent/1.0' : undefined },
    headers: {},
    metadata: {},
    tracing: { traceId: '' },
    signal: new AbortController().signal,
    ...extra,
    call: extra.call ?? new CollectedCallMetadata(() => incomingFromHeaders({})),
  };
}

export function makeCall(protocol: Protocol, service: string, method: string, streaming: StreamingMode = 'none', context?: RequestContext): DispatchCall {
  return new TransportCall(service, method, streaming, {}, context ?? makeContext(protocol), undefined, undefined, undefined, undefined);
}

export function run(interceptor: DispatchInterceptor, call: DispatchCall, handler: (call: DispatchCall) => unknown): Promise<unknown> {
  return compose([interceptor], async (c: DispatchCall) => handler(c))(call);
}

export async function drain(result: unknown): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of result as AsyncIterable<unknown>) out.push(item);
  return out;
}

/** A Writable that keeps each pino line parsed. */
export function lineCollector(): { stream: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  let pending = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      pending += chunk.toString('utf8');
      let nl = pending.indexOf('\n');
      while (nl !== -1) {
        lines.push(JSON.parse(pending.slice(0, nl)) as Record<string, unknown>);
        pending = pending.slice(nl + 1);
        nl = pending.indexOf('\n');
      }
      cb();
    },
  });
  return { stream, lines };
}

/** Error shaped like the gateway's ServiceError (spec 2.3). */
export class FakeServiceError extends Error {
  override name = 'ServiceError';
  constructor(readonly code: string, message: string, readonly statusCode = 500) {
    super(message);
  }
}

/** Error shaped like GrpcError / a grpc-js ServiceError: numeric code. */
export class FakeGrpcError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}
