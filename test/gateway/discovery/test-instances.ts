/**
 * Real gRPC instances on loopback for discovery tests: plain grpc-js servers
 * speaking JSON messages, each with a small HTTP health endpoint whose answer
 * a test can flip. Every method reports which instance served it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { CollectedCallMetadata, incomingFromHeaders } from '../../../runtime/core/call-metadata';
import type { Protocol, RequestContext } from '../../../runtime/core/request-context';

const json = {
  serialize: (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8'),
  deserialize: (b: Buffer) => JSON.parse(b.toString('utf8')) as Record<string, unknown>,
};

function method(path: string, requestStream: boolean, responseStream: boolean): grpc.MethodDefinition<unknown, unknown> {
  return {
    path, requestStream, responseStream, originalName: path.split('/')[2],
    requestSerialize: json.serialize, requestDeserialize: json.deserialize,
    responseSerialize: json.serialize, responseDeserialize: json.deserialize,
  };
}

/** `prefix` is the gRPC service path: `EchoService` (JSON forwarding) or `test.EchoService` (descriptor forwarding). */
export function echoServiceDefinition(prefix: string): grpc.ServiceDefinition {
  return {
    Echo: method(`/${prefix}/Echo`, false, false),
    Hold: method(`/${prefix}/Hold`, false, false),
    Fail: method(`/${prefix}/Fail`, false, false),
    List: method(`/${prefix}/List`, false, true),
    Collect: method(`/${prefix}/Collect`, true, false),
    Chat: method(`/${prefix}/Chat`, true, true),
  } as grpc.ServiceDefinition;
}

export interface TestInstance {
  id: string;
  port: number;
  healthPort: number;
  /** What the health endpoint answers: 200 when true, 503 when false. */
  healthy: boolean;
  /** Calls served, by method. */
  served: Record<string, number>;
  /** Trace ids seen in `x-trace-id` metadata. */
  traceIds: string[];
  /** Resolves every held `Hold` call. */
  release(): void;
  /** Stops the instance abruptly: open calls are cut, the port refuses connections. */
  kill(): void;
  stop(): Promise<void>;
}

type Req = Record<string, unknown>;

export async function startInstance(id: string, prefixes: readonly string[] = ['EchoService']): Promise<TestInstance> {
  const held: (() => void)[] = [];
  const served: Record<string, number> = {};
  const traceIds: string[] = [];
  const count = (name: string, md: grpc.Metadata): void => {
    served[name] = (served[name] ?? 0) + 1;
    const t = md.get('x-trace-id')[0];
    if (typeof t === 'string') traceIds.push(t);
  };
  const server = new grpc.Server();
  const impl: grpc.UntypedServiceImplementation = {
    Echo: (call: grpc.ServerUnaryCall<Req, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      count('Echo', call.metadata);
      cb(null, { instance: id, echo: call.request });
    },
    Hold: (call: grpc.ServerUnaryCall<Req, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      count('Hold', call.metadata);
      held.push(() => cb(null, { instance: id }));
    },
    Fail: (call: grpc.ServerUnaryCall<Req, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      count('Fail', call.metadata);
      cb({ code: (call.request.code as number | undefined) ?? grpc.status.NOT_FOUND, details: `failed on ${id}` });
    },
    List: (call: grpc.ServerWritableStream<Req, unknown>) => {
      count('List', call.metadata);
      const n = Number(call.request.count ?? 3);
      for (let i = 0; i < n; i++) call.write({ instance: id, i });
      call.end();
    },
    Collect: (call: grpc.ServerReadableStream<Req, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      count('Collect', call.metadata);
      const items: unknown[] = [];
      call.on('data', (d: Req) => items.push(d.value));
      call.on('end', () => cb(null, { instance: id, items }));
    },
    Chat: (call: grpc.ServerDuplexStream<Req, unknown>) => {
      count('Chat', call.metadata);
      call.on('data', (d: Req) => call.write({ instance: id, reply: `re: ${String(d.text)}` }));
      call.on('end', () => call.end());
    },
  };
  for (const prefix of prefixes) server.addService(echoServiceDefinition(prefix), impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const instance: TestInstance = {
    id, port, healthPort: 0, healthy: true, served, traceIds,
    release: () => held.splice(0).forEach((r) => r()),
    kill: () => {
      server.forceShutdown();
      health.closeAllConnections();
      health.close();
    },
    stop: async () => {
      instance.release();
      server.forceShutdown();
      health.closeAllConnections();
      await new Promise((r) => health.close(r));
    },
  };
  const health = http.createServer((req, res) => {
    res.writeHead(instance.healthy ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: instance.healthy ? 'ok' : 'down' }));
  });
  await new Promise<void>((r) => health.listen(0, '127.0.0.1', r));
  instance.healthPort = (health.address() as AddressInfo).port;
  return instance;
}

let clientSeq = 0;

export function ctx(protocol: Protocol, headers: Record<string, string> = {}, clientId?: string): RequestContext {
  clientSeq++;
  return {
    protocol,
    client: { id: clientId ?? `c${clientSeq}`, address: '127.0.0.1', port: 1 },
    headers,
    metadata: {},
    tracing: { traceId: `trace-${clientSeq}` },
    signal: new AbortController().signal,
    call: new CollectedCallMetadata(() => incomingFromHeaders(headers)),
  };
}

export async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

/** Runs `total` async jobs with at most `concurrency` at a time. */
export async function runPool(total: number, concurrency: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        await job(i);
      }
    }),
  );
}

/** Polls `check` every 50 ms until it holds or `timeoutMs` passes. */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
