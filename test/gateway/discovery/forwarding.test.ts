import { fork } from 'node:child_process';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { ServiceDescriptor, MessageCodec } from '../../../runtime/rpc/descriptor';
import { createServiceDiscovery, DiscoveryConfigError, type ServiceDiscovery } from '../../../runtime/gateway/discovery';
import { ctx, fromArray, runPool, startInstance, type TestInstance } from './test-instances';

type Reply = Record<string, unknown> & { instance: string };

async function collect(iterable: unknown): Promise<Reply[]> {
  const out: Reply[] = [];
  for await (const item of iterable as AsyncIterable<Reply>) out.push(item);
  return out;
}

describe('forwarding discovered calls over gRPC', () => {
  let instances: TestInstance[] = [];
  let discovery: ServiceDiscovery | undefined;

  afterEach(async () => {
    await discovery?.close();
    discovery = undefined;
    await Promise.all(instances.map((i) => i.stop()));
    instances = [];
  });

  function staticDiscovery(extra: { healthCheck?: string; methods?: Record<string, 'none' | 'server' | 'client' | 'bidirectional'> } = {}): ServiceDiscovery {
    discovery = createServiceDiscovery(
      {
        provider: 'static',
        services: {
          EchoService: {
            strategy: 'round_robin',
            healthCheck: extra.healthCheck,
            methods: extra.methods,
            instances: instances.map((i) => ({ host: '127.0.0.1', port: i.port, healthPort: i.healthPort })),
          },
        },
        healthCheck: { intervalMs: 60_000, unhealthyThreshold: 2, healthyThreshold: 1 },
      },
      { descriptorFor: () => undefined },
    );
    return discovery;
  }

  test('all four streaming modes reach the instance with the JSON codec, and the trace id travels as metadata', async () => {
    instances = [await startInstance('a')];
    const d = staticDiscovery({ methods: { list: 'server', collect: 'client', chat: 'bidirectional' } });
    await d.ready();
    const c = ctx('http');
    c.tracing.traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(await d.resolve('EchoService', 'echo')?.handler({ hello: 'world' }, c)).toEqual({ instance: 'a', echo: { hello: 'world' } });
    expect(instances[0]?.traceIds).toEqual(['4bf92f3577b34da6a3ce929d0e0e4736']);

    const list = d.resolve('EchoService', 'list');
    expect(list?.streaming).toBe('server');
    expect(await collect(list?.handler({ count: 4 }, ctx('websocket')))).toEqual([0, 1, 2, 3].map((i) => ({ instance: 'a', i })));

    const col = d.resolve('EchoService', 'collect');
    expect(await col?.handler(fromArray([{ value: 1 }, { value: 2 }, { value: 3 }]), ctx('tcp'))).toEqual({ instance: 'a', items: [1, 2, 3] });

    const chat = d.resolve('EchoService', 'chat');
    const replies = await collect(chat?.handler(fromArray([{ text: 'hi' }, { text: 'bye' }]), ctx('udp')));
    expect(replies).toEqual([{ instance: 'a', reply: 're: hi' }, { instance: 'a', reply: 're: bye' }]);
  });

  test('with a descriptor, calls use its path and protobuf codecs', async () => {
    instances = [await startInstance('a', ['test.EchoService'])];
    const used: string[] = [];
    // A stand-in for ts-proto codecs: JSON bytes, recording that the descriptor codec ran.
    const codec = (name: string): MessageCodec<unknown> => ({
      encode: (m) => { used.push(`encode ${name}`); return new Uint8Array(Buffer.from(JSON.stringify(m))); },
      decode: (b) => { used.push(`decode ${name}`); return JSON.parse(Buffer.from(b).toString()) as unknown; },
      fromJSON: (j) => j,
      toJSON: (m) => m,
    });
    const descriptor: ServiceDescriptor = {
      typeName: 'test.EchoService', name: 'EchoService', packageName: 'test',
      methods: {
        Echo: {
          name: 'Echo', localName: 'echo', path: '/test.EchoService/Echo', streaming: 'none',
          requestType: 'test.Req', responseType: 'test.Res', requestCodec: codec('req'), responseCodec: codec('res'), http: [],
        },
      },
    };
    discovery = createServiceDiscovery(
      { provider: 'static', services: { EchoService: { instances: [{ host: '127.0.0.1', port: instances[0]?.port as number }] } } },
      { descriptorFor: (s) => (s === 'EchoService' ? descriptor : undefined) },
    );
    await discovery.ready();
    expect(await discovery.resolve('EchoService', 'echo')?.handler({ x: 1 }, ctx('http'))).toEqual({ instance: 'a', echo: { x: 1 } });
    expect(await discovery.resolve('EchoService', 'Echo')?.handler({ x: 2 }, ctx('http'))).toEqual({ instance: 'a', echo: { x: 2 } });
    expect(used).toEqual(['encode req', 'decode res', 'encode req', 'decode res']);
    expect(discovery.resolve('EchoService', 'nope')).toBeUndefined();
    expect(discovery.resolve('OtherService', 'echo')).toBeUndefined();
  });

  test('a handler error comes back with its status and is not retried', async () => {
    instances = await Promise.all(['a', 'b'].map((id) => startInstance(id)));
    const d = staticDiscovery();
    await d.ready();
    await expect(d.resolve('EchoService', 'fail')?.handler({ code: grpc.status.NOT_FOUND }, ctx('http'))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    expect((instances[0]?.served.Fail ?? 0) + (instances[1]?.served.Fail ?? 0)).toBe(1);
  });

  test('UNAVAILABLE from an instance that never answered is retried on another instance', async () => {
    instances = await Promise.all(['a', 'b', 'c'].map((id) => startInstance(id)));
    const d = staticDiscovery({ methods: { list: 'server' } });
    await d.ready();
    instances[1]?.kill();
    const seen: string[] = [];
    for (let i = 0; i < 9; i++) seen.push(((await d.resolve('EchoService', 'echo')?.handler({}, ctx('http'))) as Reply).instance);
    expect(seen.filter((s) => s === 'b')).toHaveLength(0);
    expect(seen).toHaveLength(9);
    const streamed: Reply[][] = [];
    for (let i = 0; i < 3; i++) streamed.push(await collect(d.resolve('EchoService', 'list')?.handler({ count: 2 }, ctx('http'))));
    expect(streamed.map((s) => s.length)).toEqual([2, 2, 2]);
    expect(streamed.flat().filter((r) => r.instance === 'b')).toHaveLength(0);
  });

  test('every instance down: a unary call tries each once and fails UNAVAILABLE; a deadline ends a held call; nothing stays in flight', async () => {
    instances = await Promise.all(['a', 'b', 'c'].map((id) => startInstance(id)));
    const d = staticDiscovery();
    await d.ready();
    for (const i of instances) i.kill();
    await expect(d.resolve('EchoService', 'echo')?.handler({}, ctx('http'))).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect(d.instances('EchoService').map((i) => i.picked)).toEqual([1, 1, 1]);
    expect(d.instances('EchoService').map((i) => i.inFlight)).toEqual([0, 0, 0]);
    await d.close();

    instances = [await startInstance('a')];
    discovery = createServiceDiscovery(
      { provider: 'static', services: { EchoService: { instances: [{ host: '127.0.0.1', port: instances[0]?.port ?? 0 }] } }, forwarding: { deadlineMs: 100 } },
      { descriptorFor: () => undefined },
    );
    await expect(discovery.resolve('EchoService', 'hold')?.handler({}, ctx('http'))).rejects.toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
    expect(discovery.instances('EchoService')[0]?.inFlight).toBe(0);
    instances[0]?.release();
  });

  test('one of 3 instances killed (SIGKILL) during a 2,000-call run: every call still succeeds', async () => {
    instances = await Promise.all(['a', 'c'].map((id) => startInstance(id)));
    const child = fork(path.join(__dirname, 'fixtures', 'instance-process.js'), ['b'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    try {
      const bPort = await new Promise<number>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('instance b did not start')), 15_000);
        child.once('message', (m: { port: number }) => { clearTimeout(t); resolve(m.port); });
      });
      const [a, c] = instances as [TestInstance, TestInstance];
      discovery = createServiceDiscovery(
        {
          provider: 'static',
          services: { EchoService: { strategy: 'round_robin', instances: [{ host: '127.0.0.1', port: a.port }, { host: '127.0.0.1', port: bPort }, { host: '127.0.0.1', port: c.port }] } },
        },
        { descriptorFor: () => undefined },
      );
      const d = discovery;
      const echo = d.resolve('EchoService', 'echo');
      let started = 0;
      const failures: string[] = [];
      let killedAt = -1;
      const servedBy: string[] = new Array(2000);
      await runPool(2000, 8, async () => {
        const index = started++;
        if (index === 600) {
          child.kill('SIGKILL');
          killedAt = index;
        }
        try {
          servedBy[index] = ((await echo?.handler({ index }, ctx('http'))) as Reply).instance;
        } catch (error) {
          failures.push(`call ${index}: ${(error as Error).message}`);
        }
      });
      expect(failures).toEqual([]);
      expect(servedBy.filter((s) => s !== undefined)).toHaveLength(2000);
      expect(servedBy.slice(0, killedAt).filter((s) => s === 'b').length).toBeGreaterThan(100);
      // Once the kill has been seen, b never answers again: calls that would have gone to it are retried on a or c.
      expect(servedBy.slice(killedAt + 50).filter((s) => s === 'b')).toHaveLength(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  test('instances failing health checks leave the rotation and come back when healthy', async () => {
    instances = await Promise.all(['a', 'b', 'c'].map((id) => startInstance(id)));
    const d = staticDiscovery({ healthCheck: '/health' });
    await d.ready();
    const who = async (): Promise<string> => ((await d.resolve('EchoService', 'echo')?.handler({}, ctx('http'))) as Reply).instance;
    (instances[1] as TestInstance).healthy = false;
    await d.checkHealth();
    expect(d.instances('EchoService')[1]?.healthy).toBe(true); // one failure is below the threshold of 2
    await d.checkHealth();
    expect(d.instances('EchoService')[1]?.healthy).toBe(false);
    const out = new Set<string>();
    for (let i = 0; i < 6; i++) out.add(await who());
    expect(out).toEqual(new Set(['a', 'c']));
    (instances[1] as TestInstance).healthy = true;
    await d.checkHealth();
    const back = new Set<string>();
    for (let i = 0; i < 6; i++) back.add(await who());
    expect(back).toEqual(new Set(['a', 'b', 'c']));
  });

  test('no instance available fails UNAVAILABLE; cancelling the caller cancels the forwarded call', async () => {
    discovery = createServiceDiscovery(
      { provider: 'static', services: { Empty: { instances: [] } } },
      { descriptorFor: () => undefined },
    );
    await expect(discovery.resolve('Empty', 'echo')?.handler({}, ctx('http'))).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE, message: expect.stringContaining('Empty') });
    await discovery.close();

    instances = [await startInstance('a')];
    const d = staticDiscovery();
    const abort = new AbortController();
    const c = { ...ctx('http'), signal: abort.signal };
    const pending = d.resolve('EchoService', 'hold')?.handler({}, c) as Promise<unknown>;
    setTimeout(() => abort.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: grpc.status.CANCELLED });
    expect(d.instances('EchoService')[0]?.inFlight).toBe(0);
  });

  test('calls sharing one connection signal: no listener pile-up, and aborting it cancels them all', async () => {
    instances = [await startInstance('a')];
    const d = staticDiscovery();
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const connection = new AbortController();
      const held = Array.from({ length: 25 }, () => d.resolve('EchoService', 'hold')?.handler({}, { ...ctx('tcp'), signal: connection.signal }) as Promise<unknown>);
      const quick = await Promise.all(Array.from({ length: 25 }, () => d.resolve('EchoService', 'echo')?.handler({}, { ...ctx('tcp'), signal: connection.signal })));
      expect(quick).toHaveLength(25);
      connection.abort();
      const outcomes = await Promise.allSettled(held);
      expect(outcomes.every((o) => o.status === 'rejected' && (o.reason as { code: number }).code === grpc.status.CANCELLED)).toBe(true);
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('bad configurations are refused with the key named', () => {
    const opts = { descriptorFor: () => undefined };
    expect(() => createServiceDiscovery({ provider: 'zookeeper' as never, services: {} }, opts)).toThrow(/provider: unknown provider "zookeeper"/);
    expect(() => createServiceDiscovery({ provider: 'static', services: { S: { instances: 'auto-discover' } } }, opts)).toThrow(/services\.S\.instances: the static provider needs a list/);
    expect(() => createServiceDiscovery({ provider: 'static', services: { S: { strategy: 'random' as never, instances: [] } } }, opts)).toThrow(/services\.S\.strategy/);
    expect(() => createServiceDiscovery({ provider: 'static', services: { S: { instances: [{ host: 'h', port: 70000 }] } } }, opts)).toThrow(/services\.S\.instances\[0\]\.port/);
    expect(() => createServiceDiscovery({ provider: 'static', services: { S: { instances: [{ host: 'h', port: 1, weight: 0 }] } } }, opts)).toThrow(/weight/);
    expect(() => createServiceDiscovery({ provider: 'static', services: { S: { healthCheck: 'health', instances: [] } } }, opts)).toThrow(/healthCheck/);
    expect(() => createServiceDiscovery({ provider: 'etcd', services: { S: {} } }, opts)).toThrow(/etcd\.hosts/);
    expect(() => createServiceDiscovery({ provider: 'static', services: {}, routing: { grpc: { load_balancing: 'ring_hash' as never } } }, opts)).toThrow(DiscoveryConfigError);
  });
});
