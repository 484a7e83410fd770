import { createServiceDiscovery, type ServiceDiscovery, type BalancingStrategy, type RoutingConfig } from '../../../runtime/gateway/discovery';
import { ctx, runPool, startInstance, type TestInstance } from './test-instances';

type Reply = { instance: string };

describe('load balancing over 3 discovered instances', () => {
  let instances: TestInstance[] = [];
  let discovery: ServiceDiscovery | undefined;

  beforeEach(async () => {
    instances = await Promise.all(['a', 'b', 'c'].map((id) => startInstance(id)));
  });

  afterEach(async () => {
    await discovery?.close();
    discovery = undefined;
    await Promise.all(instances.map((i) => i.stop()));
  });

  function discover(strategy: BalancingStrategy, weights: number[] = [1, 1, 1], routing?: RoutingConfig): ServiceDiscovery {
    discovery = createServiceDiscovery(
      {
        provider: 'static',
        services: { EchoService: { strategy, instances: instances.map((i, k) => ({ host: '127.0.0.1', port: i.port, weight: weights[k] })) } },
        routing,
      },
      { descriptorFor: () => undefined },
    );
    return discovery;
  }

  async function echo(d: ServiceDiscovery, context = ctx('http')): Promise<string> {
    const m = d.resolve('EchoService', 'echo');
    if (m === undefined) throw new Error('not resolved');
    return ((await m.handler({ n: 1 }, context)) as Reply).instance;
  }

  test('round_robin cycles exactly', async () => {
    const d = discover('round_robin');
    await d.ready();
    const order: string[] = [];
    for (let i = 0; i < 30; i++) order.push(await echo(d));
    expect(order.slice(0, 3).sort()).toEqual(['a', 'b', 'c']);
    for (let i = 3; i < 30; i++) expect(order[i]).toBe(order[i - 3]);
    expect(instances.map((i) => i.served.Echo)).toEqual([10, 10, 10]);
  });

  test('weighted (1:2:3) is within 10% of each share over 3,000 calls', async () => {
    const d = discover('weighted', [1, 2, 3]);
    await d.ready();
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    await runPool(3000, 16, async () => {
      const who = await echo(d);
      counts[who] = (counts[who] ?? 0) + 1;
    });
    const expected = { a: 500, b: 1000, c: 1500 };
    for (const id of ['a', 'b', 'c'] as const) {
      expect(Math.abs((counts[id] as number) - expected[id])).toBeLessThanOrEqual(expected[id] * 0.1);
    }
    expect((counts.a as number) + (counts.b as number) + (counts.c as number)).toBe(3000);
  });

  test('least_connections sends new calls to the idle instance', async () => {
    const d = discover('least_connections');
    await d.ready();
    const hold = d.resolve('EchoService', 'hold');
    const first = hold?.handler({}, ctx('grpc')) as Promise<Reply>;
    const second = hold?.handler({}, ctx('grpc')) as Promise<Reply>;
    const busy = new Set(d.instances('EchoService').filter((i) => i.inFlight > 0).map((i) => i.port));
    expect(busy.size).toBe(2);
    const idle = instances.find((i) => !busy.has(i.port));
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) seen.push(await echo(d, ctx('grpc')));
    expect(new Set(seen)).toEqual(new Set([idle?.id]));
    instances.forEach((i) => i.release());
    const held = await Promise.all([first, second]);
    expect(held.map((r) => r.instance).sort()).toEqual(instances.filter((i) => busy.has(i.port)).map((i) => i.id).sort());
  });

  test('sticky sessions keep each X-Session-ID on one instance', async () => {
    const d = discover('round_robin', undefined, { http: { sticky_sessions: true, session_header: 'X-Session-ID' } });
    await d.ready();
    const bySession: Record<string, Set<string>> = {};
    for (let round = 0; round < 10; round++) {
      for (const session of ['s1', 's2', 's3', 's4']) {
        const who = await echo(d, ctx('http', { 'x-session-id': session }));
        (bySession[session] ??= new Set()).add(who);
      }
    }
    for (const s of Object.values(bySession)) expect(s.size).toBe(1);
    // The first three sessions were spread by round robin before being pinned.
    expect(new Set(['s1', 's2', 's3'].map((s) => [...(bySession[s] as Set<string>)][0])).size).toBe(3);
    // Calls without a session id are still balanced.
    const free = new Set<string>();
    for (let i = 0; i < 3; i++) free.add(await echo(d, ctx('http')));
    expect(free.size).toBe(3);
  });

  test('websocket connection_affinity keeps a connection on one instance; grpc pick_first pins a gRPC client', async () => {
    const d = discover('round_robin', undefined, { websocket: { connection_affinity: true }, grpc: { load_balancing: 'pick_first' } });
    await d.ready();
    for (const protocol of ['websocket', 'grpc'] as const) {
      for (const conn of ['conn-1', 'conn-2']) {
        const seen = new Set<string>();
        for (let i = 0; i < 6; i++) seen.add(await echo(d, ctx(protocol, {}, conn)));
        expect(seen.size).toBe(1);
      }
    }
  });

  test('routing.grpc.load_balancing sets the strategy of calls arriving over gRPC', async () => {
    const d = discover('weighted', [1, 1, 10], { grpc: { load_balancing: 'round_robin' } });
    await d.ready();
    const seen: string[] = [];
    for (let i = 0; i < 9; i++) seen.push(await echo(d, ctx('grpc')));
    expect(seen.filter((s) => s === 'c')).toHaveLength(3);
  });

  test('a pinned session moves when its instance fails health checks', async () => {
    discovery = createServiceDiscovery(
      {
        provider: 'static',
        services: { EchoService: { healthCheck: '/health', instances: instances.map((i) => ({ host: '127.0.0.1', port: i.port, healthPort: i.healthPort })) } },
        routing: { http: { sticky_sessions: true } },
        healthCheck: { intervalMs: 60_000, unhealthyThreshold: 1 },
      },
      { descriptorFor: () => undefined },
    );
    const d = discovery;
    await d.ready();
    const first = await echo(d, ctx('http', { 'x-session-id': 'sticky' }));
    const pinned = instances.find((i) => i.id === first) as TestInstance;
    pinned.healthy = false;
    await d.checkHealth();
    const moved = await echo(d, ctx('http', { 'x-session-id': 'sticky' }));
    expect(moved).not.toBe(first);
    for (let i = 0; i < 5; i++) expect(await echo(d, ctx('http', { 'x-session-id': 'sticky' }))).toBe(moved);
  });
});
