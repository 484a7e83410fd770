/**
 * A generated service served only by discovered instances (three real fw
 * processes, UserService from generated/user.fw.ts), known to the gateway by
 * its descriptor alone; one instance is frozen with SIGSTOP under load, then
 * resumed. GetUser (`idempotency_level = NO_SIDE_EFFECTS`) loses no call;
 * CreateUser (no level) is never sent twice and never waits past the
 * forwarding deadline; the frozen instance leaves the rotation within 2 s and
 * comes back after SIGCONT.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { ProtocolGateway } from 'fw';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { waitForExit } from '../../support/child-exit';
import { HOST } from '../support/clients';

interface Instance {
  id: string;
  port: number;
  child: ChildProcess;
}

function startInstance(id: string): Promise<Instance> {
  const child = fork(path.join(__dirname, 'fixtures', 'user-instance-process.js'), [id], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ id, port: m.port, child }));
    child.once('exit', (code) => reject(new Error(`instance ${id} exited (${String(code)})`)));
  });
}

function countsOf(instance: Instance): Promise<Record<string, number>> {
  return new Promise((resolve) => {
    instance.child.once('message', (m: { counts: Record<string, number> }) => resolve(m.counts));
    instance.child.send('counts');
  });
}

const DEADLINE_MS = 3000;
/** A request still unanswered this long after the forwarding deadline "waited past it". */
const GUARD_MS = DEADLINE_MS + 3000;

interface Outcome {
  method: 'getUser' | 'createUser';
  status: number;
  servedBy: string | undefined;
  error: string | undefined;
  startedAt: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function call(port: number, method: 'getUser' | 'createUser', body: unknown): Promise<Outcome> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      { host: HOST, port, agent, method: 'POST', path: `/api/UserService/${method}`, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }, timeout: GUARD_MS },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { name?: string }; message?: string; error?: string };
          resolve({ method, status: res.statusCode ?? 0, servedBy: json.data?.name?.replace('served by ', ''), error: json.message ?? json.error, startedAt });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('waited past the forwarding deadline')));
    req.on('error', (e) => resolve({ method, status: 0, servedBy: undefined, error: e.message, startedAt }));
    req.end(payload);
  });
}

describe('a discovered instance frozen (SIGSTOP) under load', () => {
  let instances: Instance[] = [];
  let gateway: ProtocolGateway;
  let port: number;
  const events: Array<{ decision: string; instance: string | undefined; reason: string; at: number }> = [];

  beforeAll(async () => {
    instances = await Promise.all(['a', 'b', 'c'].map((id) => startInstance(id)));
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.configureMonitoring({ metrics: { enabled: true } });
    gateway.addEventSink({ onEvent: (e) => void (e.type === 'discovery' && events.push({ ...e, at: Date.now() })) });
    gateway.configureServiceDiscovery({
      provider: 'static',
      services: { UserService: { descriptor: UserServiceDescriptor, instances: instances.map((i) => ({ host: HOST, port: i.port })) } },
      forwarding: { deadlineMs: DEADLINE_MS },
    });
    port = (await gateway.listen(0, HOST)).port as number;
  }, 30_000);

  afterAll(async () => {
    agent.destroy();
    await gateway?.close();
    for (const i of instances) {
      i.child.kill('SIGCONT');
      i.child.kill('SIGKILL');
      await waitForExit(i.child, 5000);
    }
  });

  test('idempotent calls lost: 0; none waits past the deadline; out of rotation within 2 s; back after SIGCONT', async () => {
    const outcomes: Outcome[] = [];
    let running = true;
    let n = 0;
    const worker = async (method: 'getUser' | 'createUser'): Promise<void> => {
      while (running) {
        n++;
        outcomes.push(await call(port, method, method === 'getUser' ? { id: `u${n}` } : { name: `n${n}`, email: `n${n}@example.com` }));
      }
    };
    const workers = [...Array.from({ length: 8 }, () => worker('getUser')), ...Array.from({ length: 2 }, () => worker('createUser'))];
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

    await sleep(500);
    const frozen = instances[1] as Instance;
    const before = await countsOf(frozen);
    const stoppedAt = Date.now();
    frozen.child.kill('SIGSTOP');
    await sleep(4000);
    frozen.child.kill('SIGCONT');
    const resumedAt = Date.now();
    // Back in rotation: the resumed instance answers a liveness ping, takes a trial call, its circuit closes.
    const back = async (): Promise<boolean> => events.some((e) => e.decision === 'circuit_closed' && e.instance?.endsWith(`:${frozen.port}`) && e.at > resumedAt);
    for (let i = 0; i < 100 && !(await back()); i++) await sleep(100);
    await sleep(500);
    running = false;
    await Promise.all(workers);
    const after = await countsOf(frozen);

    const gets = outcomes.filter((o) => o.method === 'getUser');
    const creates = outcomes.filter((o) => o.method === 'createUser');
    expect(gets.length).toBeGreaterThan(100);
    // Idempotent (NO_SIDE_EFFECTS) calls lost: 0.
    expect(gets.filter((o) => o.status !== 200)).toEqual([]);
    // Nothing waited past the forwarding deadline (the request guard would have cut it: status 0).
    expect(outcomes.filter((o) => o.status === 0)).toEqual([]);
    // Non-idempotent calls on the frozen instance ended at the deadline (504), never retried elsewhere.
    for (const o of creates) expect([200, 504]).toContain(o.status);

    // Out of rotation within 2 s of the freeze: its circuit opened (liveness ping unanswered)...
    const opened = events.find((e) => e.decision === 'circuit_open' && e.instance?.endsWith(`:${frozen.port}`) && e.at >= stoppedAt);
    expect(opened).toBeDefined();
    expect((opened as { at: number }).at - stoppedAt).toBeLessThan(2000);
    expect(events.some((e) => e.decision === 'instance_unresponsive' && e.instance?.endsWith(`:${frozen.port}`))).toBe(true);
    // ...and idempotent calls caught on it went elsewhere.
    expect(events.some((e) => e.decision === 'retry' && /unresponsive/.test(e.reason))).toBe(true);
    // Back after SIGCONT: it served calls again.
    expect(events.some((e) => e.decision === 'circuit_closed' && e.instance?.endsWith(`:${frozen.port}`))).toBe(true);
    expect((after.getUser ?? 0) + (after.createUser ?? 0)).toBeGreaterThan((before.getUser ?? 0) + (before.createUser ?? 0));

    // Every decision is in the metrics.
    const metrics = await (await fetch(`http://${HOST}:${port}/metrics`)).text();
    expect(metrics).toMatch(/fw_gateway_discovery_events_total\{service="UserService",decision="circuit_open"\} [1-9]/);
    expect(metrics).toMatch(/fw_gateway_discovery_events_total\{service="UserService",decision="retry"\} [1-9]/);
  }, 60_000);
});
