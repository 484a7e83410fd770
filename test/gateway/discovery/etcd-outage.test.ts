/**
 * A gateway discovering its instances in a real etcd: no call fails right
 * after listen() (it waits for the first lists); etcd SIGKILLed under load:
 * serving goes on with the last-known instances and the outage is reported
 * (event, warning, metric, GET /ready); after the restart a change is seen
 * within 2 s.
 */
import { Etcd3 } from 'etcd3';
import { ProtocolGateway } from 'fw';
import { httpDriver } from '../support/drivers';
import { HOST } from '../support/clients';
import { PEERS, requirePeers } from '../../support/peers';
import { startEtcd, type EtcdServer } from './etcd-server';
import { startInstance, type TestInstance } from './test-instances';

requirePeers(PEERS.etcd)('etcd lost and back under load', () => {
  let etcd: EtcdServer;
  let client: Etcd3;
  let instances: TestInstance[] = [];
  let gateway: ProtocolGateway | undefined;
  const events: Array<{ decision: string; reason: string; at: number }> = [];
  const logs: string[] = [];

  beforeAll(async () => {
    etcd = await startEtcd();
    client = new Etcd3({ hosts: etcd.url });
    instances = await Promise.all(['a', 'b', 'c', 'd'].map((id) => startInstance(id)));
    for (const i of instances.slice(0, 3)) await client.put(`/fw/services/EchoService/${i.id}`).value(JSON.stringify({ host: HOST, port: i.port }));
  }, 30_000);

  afterAll(async () => {
    await gateway?.close();
    client?.close();
    await etcd?.stop();
    await Promise.all(instances.map((i) => i.stop()));
  });

  test('no failed call after listen(); serving survives etcd SIGKILL, reported; a change after restart seen within 2 s', async () => {
    const gw = new ProtocolGateway({ enableUDP: false });
    gateway = gw;
    gw.configureMonitoring({ metrics: { enabled: true } });
    gw.addEventSink({ onEvent: (e) => void (e.type === 'discovery' && events.push({ decision: e.decision, reason: e.reason, at: Date.now() })) });
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(((m: string | Error) => void logs.push(String(m))) as typeof process.emitWarning);
    try {
      gw.configureServiceDiscovery({ provider: 'etcd', etcd: { hosts: etcd.url }, services: { EchoService: { instances: 'auto-discover' } } });
      const port = (await gw.listen(0, HOST)).port as number;
      const http = httpDriver(port);

      // Right after listen(): every call finds an instance.
      const first = await Promise.all(Array.from({ length: 30 }, (_, i) => http.call('EchoService', 'echo', { i })));
      expect(first.filter((r) => !r.ok)).toEqual([]);
      const ready = await (await fetch(`http://${HOST}:${port}/ready`)).json() as { ready: boolean; services: Record<string, { backend: string; instances: number }> };
      expect(ready).toMatchObject({ ready: true, services: { EchoService: { backend: 'up', instances: 3 } } });

      // Load through the outage.
      let running = true;
      const results: boolean[] = [];
      const loops = Array.from({ length: 4 }, async () => {
        while (running) results.push((await http.call('EchoService', 'echo', {})).ok);
      });
      await new Promise((r) => setTimeout(r, 300));
      await etcd.kill();
      for (let i = 0; i < 100 && !events.some((e) => e.decision === 'backend_lost'); i++) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 1000));
      const duringOutage = await (await fetch(`http://${HOST}:${port}/ready`)).json() as { ready: boolean; services: Record<string, { backend: string; lastError?: string; instances: number }> };
      const metrics = await (await fetch(`http://${HOST}:${port}/metrics`)).text();

      // Reported: event, log line, /ready detail (still ready: last-known instances serve), metric.
      expect(events.some((e) => e.decision === 'backend_lost')).toBe(true);
      expect(logs.some((l) => /service discovery \(EchoService\): backend lost: .*serving on the 3 last-known instance/.test(l))).toBe(true);
      expect(duringOutage.ready).toBe(true);
      expect(duringOutage.services.EchoService).toMatchObject({ backend: 'down', instances: 3, lastError: expect.any(String) });
      expect(metrics).toMatch(/fw_gateway_discovery_events_total\{service="EchoService",decision="backend_lost"\} 1/);

      await etcd.restart();
      for (let i = 0; i < 100 && !events.some((e) => e.decision === 'backend_restored'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(events.some((e) => e.decision === 'backend_restored')).toBe(true);

      // A fourth instance registers after the restart: calls reach it within 2 s.
      const d = instances[3] as TestInstance;
      const changedAt = Date.now();
      await client.put(`/fw/services/EchoService/${d.id}`).value(JSON.stringify({ host: HOST, port: d.port }));
      let seenAfter = -1;
      for (let i = 0; i < 100 && seenAfter < 0; i++) {
        if ((d.served.Echo ?? 0) > 0) seenAfter = Date.now() - changedAt;
        else await new Promise((r) => setTimeout(r, 20));
      }
      running = false;
      await Promise.all(loops);
      expect(seenAfter).toBeGreaterThanOrEqual(0);
      expect(seenAfter).toBeLessThan(2000);
      // Serving never stopped: no call failed while etcd was away or coming back.
      expect(results.length).toBeGreaterThan(50);
      expect(results.filter((ok) => !ok)).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  }, 90_000);
});
