/**
 * The forwarding policy against real instances on loopback: the default
 * deadline and the caller's own, the bulkhead, hedging of idempotent calls
 * around an instance that takes calls and never answers, the circuit
 * breaker (and its `off` member), and configure-time checks.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createServiceDiscovery, DiscoveryConfigError, type CircuitBreakerKind, type DiscoveryEvent, type ServiceDiscovery } from '../../../runtime/gateway/discovery';
import { CLOSED_BREAKER } from '../../../runtime/gateway/discovery/circuit-breakers';
import { freePort } from './etcd-server';
import { ctx, startInstance, type TestInstance } from './test-instances';

type Code = { code?: number; message?: string };

/** An HTTP/2 server that takes every call and never answers it (acks pings: up, but stuck). */
async function startBlackHole(): Promise<{ port: number; calls: number; close(): Promise<void> }> {
  const state = { calls: 0 };
  const server = http2.createServer();
  server.on('stream', (stream) => {
    state.calls++;
    stream.on('error', () => undefined);
  });
  server.on('sessionError', () => undefined);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get calls() {
      return state.calls;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sessions) s.destroy();
      }),
  };
}

describe('forwarding policy', () => {
  let instances: TestInstance[] = [];
  let discovery: ServiceDiscovery | undefined;
  let events: DiscoveryEvent[] = [];

  beforeEach(() => {
    events = [];
  });

  afterEach(async () => {
    await discovery?.close();
    discovery = undefined;
    await Promise.all(instances.map((i) => i.stop()));
    instances = [];
  });

  function discover(ports: number[], forwarding: Record<string, unknown>, extra: Record<string, unknown> = {}): ServiceDiscovery {
    discovery = createServiceDiscovery(
      { provider: 'static', services: { EchoService: { instances: ports.map((port) => ({ host: '127.0.0.1', port })), ...extra } }, forwarding },
      { descriptorFor: () => undefined, onEvent: (e) => events.push(e), log: () => undefined },
    );
    return discovery;
  }

  test('a call past the forwarding deadline ends DEADLINE_EXCEEDED; a sooner caller deadline wins', async () => {
    instances = [await startInstance('a')];
    const d = discover([instances[0]!.port], { deadlineMs: 300 });
    const hold = d.resolve('EchoService', 'hold')!;
    const error = (await Promise.resolve(hold.handler({}, ctx('http'))).catch((e: unknown) => e)) as Code;
    expect(error.code).toBe(4);
    expect(events.some((e) => e.decision === 'deadline_exceeded')).toBe(true);

    // The caller's own deadline (a gRPC caller's grpc-timeout) is sooner than a long forwarding deadline.
    await d.close();
    const long = discover([instances[0]!.port], { deadlineMs: 60_000 });
    const c = ctx('grpc');
    c.metadata = { deadline: Date.now() + 200 };
    const guard = new Promise<Code>((r) => setTimeout(() => r({ code: -1 }), 10_000).unref());
    const early = (await Promise.race([Promise.resolve(long.resolve('EchoService', 'hold')!.handler({}, c)).catch((e: unknown) => e as Code), guard])) as Code;
    expect(early.code).toBe(4);
  });

  test('the bulkhead skips a full instance and refuses when every one is full', async () => {
    instances = [await startInstance('a'), await startInstance('b')];
    const d = discover(instances.map((i) => i.port), { bulkhead: { maxInFlight: 2 } });
    const hold = d.resolve('EchoService', 'hold')!;
    const held = Array.from({ length: 4 }, () => Promise.resolve(hold.handler({}, ctx('http'))));
    for (let i = 0; i < 100 && (instances[0]!.served.Hold ?? 0) + (instances[1]!.served.Hold ?? 0) < 4; i++) await new Promise((r) => setTimeout(r, 20));
    expect(instances.map((i) => i.served.Hold)).toEqual([2, 2]);
    const refused = (await Promise.resolve(hold.handler({}, ctx('http'))).catch((e: unknown) => e)) as Code;
    expect(refused.code).toBe(8);
    expect(refused.message).toMatch(/already has 2 calls in flight/);
    expect(events.some((e) => e.decision === 'bulkhead_full')).toBe(true);
    instances.forEach((i) => i.release());
    await Promise.all(held);
  });

  test('hedging: an idempotent call stuck on an instance that never answers is answered by another', async () => {
    const hole = await startBlackHole();
    instances = [await startInstance('a')];
    try {
      const d = discover([hole.port, instances[0]!.port], { deadlineMs: 5000, hedging: { delayMs: 100 }, liveness: false }, { idempotentMethods: ['echo'] });
      const echo = d.resolve('EchoService', 'echo')!;
      const replies = (await Promise.all(Array.from({ length: 4 }, () => echo.handler({ n: 1 }, ctx('http'))))) as Array<{ instance: string }>;
      expect(replies.map((r) => r.instance)).toEqual(['a', 'a', 'a', 'a']);
      expect(hole.calls).toBeGreaterThan(0);
      expect(events.filter((e) => e.decision === 'hedge').length).toBe(hole.calls);

      // Not idempotent: never sent twice, it waits for its deadline.
      await d.close();
      events = [];
      const once = discover([hole.port, instances[0]!.port], { deadlineMs: 300, hedging: { delayMs: 50 }, liveness: false });
      const results = await Promise.all(Array.from({ length: 2 }, () => Promise.resolve(once.resolve('EchoService', 'echo')!.handler({}, ctx('http'))).catch((e: unknown) => e as Code)));
      expect(results.filter((r) => (r as Code).code === 4)).toHaveLength(1);
      expect(events.some((e) => e.decision === 'hedge')).toBe(false);
    } finally {
      await hole.close();
    }
  });

  test('liveness: an instance that is up but slow answers the probe and keeps its calls (no circuit opened)', async () => {
    const hole = await startBlackHole();
    try {
      const d = discover([hole.port], { deadlineMs: 1500, liveness: { stallMs: 100, pingTimeoutMs: 300 } });
      const error = (await Promise.resolve(d.resolve('EchoService', 'echo')!.handler({}, ctx('http'))).catch((e: unknown) => e)) as Code;
      expect(error.code).toBe(4);
      expect(events.some((e) => e.decision === 'instance_unresponsive' || e.decision === 'circuit_open')).toBe(false);
    } finally {
      await hole.close();
    }
  });

  test('connection failures open a circuit: the dead instance stops being picked; circuitBreaker: false never opens', async () => {
    instances = [await startInstance('a')];
    const dead = await freePort();
    const d = discover([dead, instances[0]!.port], { circuitBreaker: { failureThreshold: 2, openMs: 60_000 } });
    const echo = d.resolve('EchoService', 'echo')!;
    for (let i = 0; i < 10; i++) expect(((await echo.handler({}, ctx('http'))) as { instance: string }).instance).toBe('a');
    expect(events.some((e) => e.decision === 'circuit_open' && e.instance === `127.0.0.1:${dead}`)).toBe(true);
    expect(d.instances('EchoService').find((i) => i.port === dead)?.circuit).toBe('open');
    const retriesWhileOpen = events.filter((e) => e.decision === 'retry').length;
    for (let i = 0; i < 10; i++) await echo.handler({}, ctx('http'));
    expect(events.filter((e) => e.decision === 'retry').length).toBe(retriesWhileOpen);

    await d.close();
    events = [];
    const off = discover([dead, instances[0]!.port], { circuitBreaker: false });
    for (let i = 0; i < 10; i++) await off.resolve('EchoService', 'echo')!.handler({}, ctx('http'));
    expect(events.some((e) => e.decision.startsWith('circuit'))).toBe(false);
  });

  test('bad forwarding options fail at configure time, naming the key', () => {
    const make = (forwarding: Record<string, unknown>) => () =>
      createServiceDiscovery({ provider: 'static', services: { S: { instances: [{ host: '127.0.0.1', port: 1 }] } }, forwarding }, { descriptorFor: () => undefined });
    expect(make({ deadlineMs: -1 })).toThrow(DiscoveryConfigError);
    expect(make({ deadlineMs: -1 })).toThrow(/forwarding\.deadlineMs/);
    expect(make({ bulkhead: { maxInFlight: 0 } })).toThrow(/forwarding\.bulkhead\.maxInFlight/);
    expect(make({ circuitBreaker: 'bogus' })).toThrow(/circuitBreaker: unknown breaker "bogus"/);
    expect(make({ circuitBreaker: { failureThreshold: 1.5 } })).toThrow(/failureThreshold/);
    expect(() =>
      createServiceDiscovery({ provider: 'static', services: { S: { descriptor: { name: 'S' } as never, instances: [{ host: '127.0.0.1', port: 1 }] } } }, { descriptorFor: () => undefined }),
    ).toThrow(/services\.S\.descriptor: expected a service descriptor/);
  });

  test('a breaker kind of your own gets one breaker per instance and decides admission', async () => {
    instances = [await startInstance('a'), await startInstance('b')];
    const created: string[] = [];
    // Keeps instance b's circuit open for good: every call goes to a.
    let made = 0;
    const kind: CircuitBreakerKind = {
      name: 'b_always_open',
      create: () => {
        const isB = made++ === 1;
        created.push(isB ? 'b' : 'a');
        return { ...CLOSED_BREAKER, state: isB ? 'open' : 'closed', admits: () => !isB };
      },
    };
    const d = discover(instances.map((i) => i.port), { circuitBreaker: kind });
    for (let i = 0; i < 6; i++) expect(((await d.resolve('EchoService', 'echo')!.handler({}, ctx('http'))) as { instance: string }).instance).toBe('a');
    expect(created).toEqual(['a', 'b']);
    expect(d.instances('EchoService').map((i) => i.circuit)).toEqual(['closed', 'open']);
  });
});
