import { spawn } from 'node:child_process';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { createServiceDiscovery, registerEtcdInstance, type EtcdRegistration, type ServiceDiscovery } from '../../../runtime/gateway/discovery';
import { freePort, startEtcd, type EtcdServer } from './etcd-server';
import { ctx, startInstance, until, type TestInstance } from './test-instances';
import { PEERS, requirePeers } from '../../support/peers';

requirePeers(PEERS.etcd)('etcd discovery against a real etcd', () => {
  let etcd: EtcdServer;
  let client: Etcd3;
  let instances: TestInstance[] = [];
  let discovery: ServiceDiscovery | undefined;

  beforeAll(async () => {
    etcd = await startEtcd();
    client = new Etcd3({ hosts: etcd.url });
  }, 30_000);

  afterAll(async () => {
    client?.close();
    await etcd?.stop();
  });

  afterEach(async () => {
    await discovery?.close();
    discovery = undefined;
    await Promise.all(instances.map((i) => i.stop()));
    instances = [];
    await client.delete().prefix('/fw/');
  });

  test('registered instances are discovered, and followed as they come and go', async () => {
    instances = await Promise.all(['a', 'b', 'c'].map((id) => startInstance(id)));
    const regs: EtcdRegistration[] = [];
    for (const i of instances.slice(0, 2)) regs.push(await registerEtcdInstance(client, 'EchoService', { host: '127.0.0.1', port: i.port }, { ttlSeconds: 30 }));
    const problems: string[] = [];
    discovery = createServiceDiscovery(
      { provider: 'etcd', etcd: { hosts: etcd.url }, services: { EchoService: { strategy: 'round_robin', instances: 'auto-discover' } } },
      { descriptorFor: () => undefined, onProblem: (_s, e) => problems.push(e.message) },
    );
    const d = discovery;
    await d.ready();
    const ports = (): number[] => d.instances('EchoService').map((i) => i.port).sort();
    expect(ports()).toEqual([instances[0]?.port, instances[1]?.port].sort());

    const callAll = async (n: number): Promise<Set<string>> => {
      const seen = new Set<string>();
      for (let k = 0; k < n; k++) seen.add(((await d.resolve('EchoService', 'echo')?.handler({}, ctx('http'))) as { instance: string }).instance);
      return seen;
    };
    expect(await callAll(4)).toEqual(new Set(['a', 'b']));

    // A third instance registers: it joins the rotation.
    regs.push(await registerEtcdInstance(client, 'EchoService', { host: '127.0.0.1', port: instances[2]?.port as number }, { ttlSeconds: 30 }));
    await until(() => ports().length === 3);
    expect(await callAll(6)).toEqual(new Set(['a', 'b', 'c']));

    // The first one deregisters (lease revoked, as on shutdown): it leaves.
    await regs[0]?.revoke();
    await until(() => ports().length === 2);
    expect(ports()).toEqual([instances[1]?.port, instances[2]?.port].sort());
    expect(await callAll(6)).toEqual(new Set(['b', 'c']));

    // A malformed value is skipped and reported, the rest keeps working.
    await client.put('/fw/services/EchoService/broken').value('{"host": 1}');
    await until(() => problems.length > 0);
    expect(problems[0]).toMatch(/host/);
    expect(ports()).toHaveLength(2);
    await Promise.all(regs.slice(1).map((r) => r.revoke()));
    await until(() => ports().length === 0);
  });

  test('a custom key prefix and weights from the stored value', async () => {
    instances = await Promise.all(['a', 'b'].map((id) => startInstance(id)));
    await client.put('/my/EchoService/a').value(JSON.stringify({ host: '127.0.0.1', port: instances[0]?.port, weight: 3 }));
    await client.put('/my/EchoService/b').value(JSON.stringify({ host: '127.0.0.1', port: instances[1]?.port, weight: 1 }));
    discovery = createServiceDiscovery(
      { provider: 'etcd', etcd: { hosts: [etcd.url], prefix: '/my/' }, services: { EchoService: { strategy: 'weighted' } } },
      { descriptorFor: () => undefined },
    );
    await discovery.ready();
    const counts: Record<string, number> = {};
    for (let k = 0; k < 8; k++) {
      const who = ((await discovery.resolve('EchoService', 'echo')?.handler({}, ctx('http'))) as { instance: string }).instance;
      counts[who] = (counts[who] ?? 0) + 1;
    }
    expect(counts).toEqual({ a: 6, b: 2 });
    await client.delete().prefix('/my/');
  });

  test('an unreachable etcd: ready() still settles, calls fail UNAVAILABLE, and instances appear once etcd is up', async () => {
    instances = [await startInstance('late')];
    const port = await freePort();
    const problems: string[] = [];
    discovery = createServiceDiscovery(
      { provider: 'etcd', etcd: { hosts: `http://127.0.0.1:${port}`, startTimeoutMs: 300 }, services: { EchoService: {} } },
      {
        descriptorFor: () => undefined,
        onProblem: (_s, e) => {
          problems.push(e.message);
          throw new Error('a buggy listener must not stop discovery');
        },
      },
    );
    const d = discovery;
    await d.ready();
    expect(problems.length).toBeGreaterThan(0);
    await expect(d.resolve('EchoService', 'echo')?.handler({}, ctx('http'))).rejects.toMatchObject({ code: 14 });

    const late = await startEtcd(port);
    try {
      const lateClient = new Etcd3({ hosts: late.url });
      const registration = await registerEtcdInstance(lateClient, 'EchoService', { host: '127.0.0.1', port: instances[0]?.port as number }, { ttlSeconds: 30 });
      await until(() => d.instances('EchoService').length === 1, 25_000);
      const reply = (await d.resolve('EchoService', 'echo')?.handler({}, ctx('http'))) as { instance: string };
      expect(reply.instance).toBe('late');
      await discovery.close();
      discovery = undefined;
      // As on shutdown: an unrevoked lease keeps its keep-alive timer running after close().
      await registration.revoke();
      lateClient.close();
    } finally {
      await late.stop();
    }
  }, 60_000);

  test('closed while etcd is unreachable: nothing keeps retrying, and the process can exit', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(__dirname, 'fixtures', 'etcd-close-process.js'), `http://127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    // Before the fix, a watch that never connected stayed in etcd3's retry loop and the process never exited.
    const exited = await new Promise<number | null>((resolve) => {
      const limit = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 45_000);
      child.once('exit', (code) => {
        clearTimeout(limit);
        resolve(code);
      });
    });
    expect(out).toBe('closed\n');
    expect(exited).toBe(0);
  }, 60_000);
});
