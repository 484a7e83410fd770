/**
 * `workers: 2`: the same entry script (fixtures/workers-gateway.js) serves
 * from two processes behind one port. Every protocol (HTTP, WebSocket, gRPC,
 * TCP frames, UDP) is answered by both workers (each reply carries its
 * worker's pid); `/metrics` and `getMetrics()` add up both; a worker that
 * dies is replaced; SIGHUP replaces both, one at a time, with no call lost.
 */
import { callOver, httpCall, pidsOver, PROTOCOLS, sleep, startWorkers, type Started, type TestProtocol } from './support/workers';

/** Sum of every `..._total` call counter sample for `protocol` in Prometheus text, whatever the counter is named. */
function promCalls(text: string, protocol: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^(\w*(?:requests|calls)_total)\{([^}]*)\}\s+(\S+)$/.exec(line);
    if (match !== null && match[2]!.includes(`protocol="${protocol}"`)) sum += Number(match[3]);
  }
  return sum;
}

describe('workers: 2 behind one port', () => {
  let s: Started;
  /** Calls this test made, per protocol: what the summed metrics must show. */
  const made: Record<TestProtocol, number> = { http: 0, websocket: 0, grpc: 0, tcp: 0, udp: 0 };
  const call = async (protocol: TestProtocol, method: string, input: unknown = {}): Promise<Record<string, unknown>> => {
    made[protocol]++;
    return callOver(protocol, s, method, input);
  };

  beforeAll(async () => {
    s = await startWorkers({ WORKERS: '2' });
  }, 90_000);

  afterAll(async () => {
    await s?.stop();
  }, 30_000);

  it('answers every protocol from both workers, never from the primary', async () => {
    const seen = new Map<TestProtocol, Set<number>>();
    for (const protocol of PROTOCOLS) {
      const pids = new Set<number>();
      for (let i = 0; i < 60 && pids.size < 2; i++) pids.add((await call(protocol, 'Pid')).pid as number);
      seen.set(protocol, pids);
    }
    const all = new Set([...seen.values()].flatMap((pids) => [...pids]));
    expect(Object.fromEntries([...seen].map(([p, pids]) => [p, pids.size]))).toEqual({ http: 2, websocket: 2, grpc: 2, tcp: 2, udp: 2 });
    expect(all.size).toBe(2);
    expect(all.has(s.child.pid!)).toBe(false);
  }, 120_000);

  it('adds up every worker in /metrics (at once) and in getMetrics() (within a second or two)', async () => {
    for (const protocol of PROTOCOLS) for (let i = 0; i < 6; i++) await call(protocol, 'Pid');
    const scrape = await httpCall(s.port, '/metrics', undefined, 'GET');
    expect(scrape.status).toBe(200);
    for (const protocol of PROTOCOLS) expect([protocol, promCalls(scrape.text, protocol)]).toEqual([protocol, made[protocol]]);
    // getMetrics() in a worker: its own figures plus the other's last snapshot (published each second). Bounded wait.
    let totals: Record<string, number> = {};
    for (let i = 0; i < 40; i++) {
      const m = (await httpCall(s.port, '/api/Workers/Metrics')).body.data as { requests_total: Record<string, number> };
      // The Metrics call itself counts once it has answered: compare with what was made before it.
      totals = m.requests_total;
      made.http++;
      if (PROTOCOLS.every((p) => totals[p] === (p === 'http' ? made.http - 1 : made[p]))) break;
      await sleep(250);
    }
    expect(totals).toEqual({ http: made.http - 1, websocket: made.websocket, grpc: made.grpc, tcp: made.tcp, udp: made.udp });
  }, 120_000);

  it('restarts a worker that dies, and the other serves meanwhile', async () => {
    const before = await pidsOver('http', s, 2);
    const [victim, survivor] = [...before] as [number, number];
    process.kill(victim, 'SIGKILL');
    let after = new Set<number>();
    // A connection the killed worker held is lost with it: only the answers count here. Bounded.
    for (let i = 0; i < 400 && !(after.size === 2 && !after.has(victim)); i++) {
      if (i % 20 === 0) after = new Set();
      try {
        after.add((await callOver('tcp', s, 'Pid')).pid as number);
      } catch {
        // Lost with the killed worker.
      }
      await sleep(40);
    }
    expect(after.has(victim)).toBe(false);
    expect(after.has(survivor)).toBe(true);
    expect(after.size).toBe(2);
    expect(s.stderr()).toMatch(new RegExp(`worker ${victim} exited with signal SIGKILL; restarting it`));
  }, 60_000);

  it('replaces both workers one at a time on SIGHUP, losing no call', async () => {
    const before = await pidsOver('http', s, 2);
    s.child.kill('SIGHUP');
    const failures: string[] = [];
    let after = new Set<number>();
    // Calls keep going while the workers are replaced; bounded.
    for (let i = 0; i < 1000; i++) {
      try {
        after.add((await callOver(PROTOCOLS[i % PROTOCOLS.length]!, s, 'Pid')).pid as number);
      } catch (error) {
        failures.push((error as Error).message);
      }
      const fresh = [...after].filter((pid) => !before.has(pid));
      if (fresh.length === 2) break;
      if (i % 20 === 19) after = new Set(fresh);
      await sleep(40);
    }
    expect(failures).toEqual([]);
    const now = await pidsOver('grpc', s, 2);
    expect([...now].some((pid) => before.has(pid))).toBe(false);
    expect(now.size).toBe(2);
  }, 120_000);
});
