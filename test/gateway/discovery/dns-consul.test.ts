import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServiceDiscovery, type ServiceDiscovery } from '../../../runtime/gateway/discovery';
import { ctx, startInstance, until, type TestInstance } from './test-instances';

interface Srv { priority: number; weight: number; port: number; target: string }

function encodeName(name: string): Buffer {
  const parts = name.split('.').filter((p) => p !== '');
  return Buffer.concat([...parts.map((p) => Buffer.concat([Buffer.from([p.length]), Buffer.from(p, 'ascii')])), Buffer.from([0])]);
}

/** Test-only DNS responder on loopback: answers SRV questions from `records`, NXDOMAIN otherwise. */
async function startSrvServer(records: Map<string, Srv[]>): Promise<{ address: string; close(): Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    if (msg.length < 12) return;
    let off = 12;
    const labels: string[] = [];
    while (off < msg.length && msg[off] !== 0) {
      const len = msg[off] as number;
      labels.push(msg.subarray(off + 1, off + 1 + len).toString('ascii'));
      off += len + 1;
    }
    const questionEnd = off + 5;
    const name = labels.join('.').toLowerCase();
    const answers = records.get(name);
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2);
    header.writeUInt16BE(answers === undefined ? 0x8183 : 0x8180, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers?.length ?? 0, 6);
    const body = (answers ?? []).map((a) => {
      const target = encodeName(a.target);
      const rr = Buffer.alloc(12 + 6);
      rr.writeUInt16BE(0xc00c, 0);
      rr.writeUInt16BE(33, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(5, 6);
      rr.writeUInt16BE(6 + target.length, 10);
      rr.writeUInt16BE(a.priority, 12);
      rr.writeUInt16BE(a.weight, 14);
      rr.writeUInt16BE(a.port, 16);
      return Buffer.concat([rr, target]);
    });
    socket.send(Buffer.concat([header, msg.subarray(12, questionEnd), ...body]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  const { port } = socket.address();
  return { address: `127.0.0.1:${port}`, close: () => new Promise((r) => socket.close(() => r())) };
}

describe('DNS SRV and Consul discovery', () => {
  let instances: TestInstance[] = [];
  let discovery: ServiceDiscovery | undefined;

  afterEach(async () => {
    await discovery?.close();
    discovery = undefined;
    await Promise.all(instances.map((i) => i.stop()));
    instances = [];
  });

  test('dns: SRV records of the lowest priority become instances, with their weights, and are re-resolved', async () => {
    instances = await Promise.all(['a', 'b', 'c'].map((id) => startInstance(id)));
    const [a, b, c] = instances as [TestInstance, TestInstance, TestInstance];
    const records = new Map<string, Srv[]>([
      ['_grpc._tcp.echoservice.fw.test', [
        { priority: 10, weight: 1, port: a.port, target: '127.0.0.1' },
        { priority: 10, weight: 3, port: b.port, target: '127.0.0.1' },
        { priority: 20, weight: 1, port: c.port, target: '127.0.0.1' },
      ]],
    ]);
    const dns = await startSrvServer(records);
    try {
      discovery = createServiceDiscovery(
        {
          provider: 'dns',
          dns: { servers: [dns.address], srvName: (s) => `_grpc._tcp.${s.toLowerCase()}.fw.test`, refreshIntervalMs: 100 },
          services: { EchoService: { strategy: 'weighted', instances: 'auto-discover' } },
        },
        { descriptorFor: () => undefined },
      );
      const d = discovery;
      await d.ready();
      expect(d.instances('EchoService').map((i) => [i.port, i.weight])).toEqual([[a.port, 1], [b.port, 3]]);
      const counts: Record<string, number> = {};
      for (let k = 0; k < 8; k++) {
        const who = ((await d.resolve('EchoService', 'echo')?.handler({}, ctx('http'))) as { instance: string }).instance;
        counts[who] = (counts[who] ?? 0) + 1;
      }
      expect(counts).toEqual({ a: 2, b: 6 });

      // The primary group disappears: the backup priority takes over on the next refresh.
      records.set('_grpc._tcp.echoservice.fw.test', [{ priority: 20, weight: 1, port: c.port, target: '127.0.0.1' }]);
      await until(() => d.instances('EchoService').length === 1);
      expect(d.instances('EchoService')[0]?.port).toBe(c.port);
      // The name is removed (NXDOMAIN): no instances.
      records.clear();
      await until(() => d.instances('EchoService').length === 0);
    } finally {
      await dns.close();
    }
  });

  test('consul: catalog entries become instances, and a blocking query reports changes', async () => {
    instances = await Promise.all(['a', 'b'].map((id) => startInstance(id)));
    const [a, b] = instances as [TestInstance, TestInstance];
    // A stand-in for Consul's catalog API (Consul itself is not installable here): index-based blocking queries.
    let index = 7;
    let entries = [{ Address: '127.0.0.1', ServiceAddress: '', ServicePort: a.port, ServiceWeights: { Passing: 1, Warning: 1 } }];
    const waiting: (() => void)[] = [];
    const seenPaths: string[] = [];
    const consul = http.createServer((req, res) => {
      seenPaths.push(req.url ?? '');
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname !== '/v1/catalog/service/EchoService') return void res.writeHead(404).end();
      const reply = (): void => void res.writeHead(200, { 'content-type': 'application/json', 'x-consul-index': String(index) }).end(JSON.stringify(entries));
      const asked = Number(url.searchParams.get('index') ?? '0');
      if (asked > 0 && asked === index) waiting.push(reply);
      else reply();
    });
    await new Promise<void>((r) => consul.listen(0, '127.0.0.1', r));
    const { port } = consul.address() as AddressInfo;
    try {
      discovery = createServiceDiscovery(
        { provider: 'consul', consul: { url: `http://127.0.0.1:${port}`, waitSeconds: 5 }, services: { EchoService: { instances: 'auto-discover' } } },
        { descriptorFor: () => undefined },
      );
      const d = discovery;
      await d.ready();
      expect(d.instances('EchoService').map((i) => i.port)).toEqual([a.port]);
      await until(() => waiting.length === 1);
      expect(seenPaths[1]).toBe('/v1/catalog/service/EchoService?index=7&wait=5s');

      entries = [...entries, { Address: '10.9.9.9', ServiceAddress: '127.0.0.1', ServicePort: b.port, ServiceWeights: { Passing: 2, Warning: 1 } }];
      index = 8;
      waiting.splice(0).forEach((r) => r());
      await until(() => d.instances('EchoService').length === 2);
      expect(d.instances('EchoService').map((i) => [i.port, i.weight])).toEqual([[a.port, 1], [b.port, 2]]);
      const seen = new Set<string>();
      for (let k = 0; k < 4; k++) seen.add(((await d.resolve('EchoService', 'echo')?.handler({}, ctx('http'))) as { instance: string }).instance);
      expect(seen).toEqual(new Set(['a', 'b']));
    } finally {
      await discovery?.close();
      discovery = undefined;
      waiting.splice(0).forEach((r) => r());
      consul.closeAllConnections();
      await new Promise((r) => consul.close(r));
    }
  });
});
