/**
 * A real Prometheus scrapes a gateway on loopback: the totals PromQL sums
 * equal the calls made on every protocol, `rate()` over them is non-zero,
 * and the exposition passes `promtool check metrics` with no lint line.
 *
 * Each entry of SERVICES starts one service and reports the port its
 * `/metrics` is on: one gateway in this process, and a `workers: 2` gateway
 * (test/workers/fixtures/workers-gateway.js), where each scrape lands on one
 * worker and is answered with both workers' metrics added up. There every
 * protocol is called until both workers have answered it, so the totals
 * checked are sums over both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ProtocolGateway, ServiceError } from 'fw';
import { PEERS, requirePeers } from '../../support/peers';
import { allDrivers, type Driver } from '../support/drivers';
import { HOST } from '../support/clients';
import { callOver, connectionOf, httpCall, startWorkers } from '../../workers/support/workers';

type Protocol = Driver['protocol'];

interface RunningService {
  /** Port serving the gateway's protocols and `GET /metrics`. */
  readonly port: number;
  /** Processes serving calls: each protocol is called until this many have answered it. */
  readonly processes: number;
  /** One call over `protocol` that succeeds, or one that fails with USER_NOT_FOUND; resolves with the answering process's pid. */
  call(protocol: Protocol, outcome: 'ok' | 'missing'): Promise<{ ok: boolean; pid: number | undefined }>;
  close(): Promise<void>;
}

const SERVICES: ReadonlyArray<{ name: string; start: () => Promise<RunningService> }> = [
  {
    name: 'one process',
    start: async () => {
      const gateway = new ProtocolGateway({});
      gateway.addService('Users', {
        getUser: async (req: { id: string }) => ({ id: req.id, name: 'Ada', pid: process.pid }),
        missing: async () => {
          throw new ServiceError('USER_NOT_FOUND', 'no such user', 404);
        },
      });
      gateway.configureMonitoring({ metrics: { enabled: true } });
      const { port } = await gateway.listen(0, HOST);
      // One connection per protocol, kept open (the TCP one is the gauge's active connection).
      const drivers = await allDrivers(port as number, 'Users', ['getUser', 'missing']);
      let seq = 0;
      return {
        port: port as number,
        processes: 1,
        async call(protocol, outcome) {
          const driver = drivers.find((d) => d.protocol === protocol) as Driver;
          const reply = await driver.call('Users', outcome === 'ok' ? 'getUser' : 'missing', { id: String(++seq) });
          return { ok: reply.ok, pid: reply.ok ? (reply.data as { pid: number }).pid : undefined };
        },
        async close() {
          for (const d of drivers) d.close();
          await gateway.close();
        },
      };
    },
  },
  {
    name: 'workers: 2',
    start: async () => {
      const s = await startWorkers({ WORKERS: '2' });
      // One TCP connection held open, as in the one-process case (the gauge summed over both workers is 1). It
      // carries the first TCP call: the port tells a TCP-frames connection by its first bytes.
      const held = await connectionOf('tcp', s.port, s.udpPort);
      let heldCalled = false;
      return {
        port: s.port,
        processes: 2,
        async call(protocol, outcome) {
          if (outcome === 'missing') return { ok: (await httpCall(s.port, '/api/Workers/Missing')).status === 200, pid: undefined };
          if (protocol === 'tcp' && !heldCalled) {
            heldCalled = true;
            const reply = await held.call('Workers', 'Pid', 'unary', {});
            return { ok: reply.error === undefined, pid: (reply.items[0] as { pid: number } | undefined)?.pid };
          }
          // A connection of its own per call: the kernel picks the worker.
          return { ok: true, pid: (await callOver(protocol, s, 'Pid')).pid as number };
        },
        async close() {
          held.close();
          await s.stop();
        },
      };
    },
  },
];

/** Calls per protocol in each of the two batches (the second makes the counters rise between scrapes). */
const PLAN = { http: 3, websocket: 4, grpc: 5, udp: 2, tcp: 6 } as const;
/** Bound on the calls a batch adds to reach every process of a service. */
const MAX_EXTRA_CALLS = 60;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** This process's soft limit of open files, as prom-client reads it (children inherit it). */
function openFilesLimit(): number | undefined {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  return line === undefined ? undefined : Number(line.split(/\s+/)[3]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Prometheus {
  readonly #dir: string;
  readonly #child: ChildProcess;
  readonly #stderr: string[] = [];
  readonly base: string;

  constructor(targetPort: number, port: number) {
    this.#dir = mkdtempSync(path.join(tmpdir(), 'fw-prometheus-'));
    const config = path.join(this.#dir, 'prometheus.yml');
    writeFileSync(config, ['global:', '  scrape_interval: 1s', '  scrape_timeout: 900ms', 'scrape_configs:', '  - job_name: fw', '    static_configs:', `      - targets: ['${HOST}:${targetPort}']`, ''].join('\n'));
    this.base = `http://${HOST}:${port}`;
    this.#child = spawn('prometheus', [`--config.file=${config}`, `--storage.tsdb.path=${path.join(this.#dir, 'data')}`, `--web.listen-address=${HOST}:${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.#child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr.push(chunk.toString('utf8'));
      if (this.#stderr.length > 200) this.#stderr.shift();
    });
  }

  get log(): string {
    return this.#stderr.join('');
  }

  async ready(): Promise<void> {
    for (let i = 0; i < 120; i++) {
      if (this.#child.exitCode !== null) throw new Error(`prometheus exited with ${this.#child.exitCode}:\n${this.log}`);
      try {
        if ((await fetch(`${this.base}/-/ready`)).status === 200) return;
      } catch {
        // Not listening yet.
      }
      await sleep(250);
    }
    throw new Error(`prometheus not ready after 30 s:\n${this.log}`);
  }

  /** The value of an instant query's single result, or undefined while it has none. */
  async scalar(query: string): Promise<number | undefined> {
    const res = await fetch(`${this.base}/api/v1/query?query=${encodeURIComponent(query)}`);
    const body = (await res.json()) as { status: string; data: { result: { value: [number, string] }[] }; error?: string };
    if (body.status !== 'success') throw new Error(`query ${query} failed: ${body.error}`);
    const first = body.data.result[0];
    return first === undefined ? undefined : Number(first.value[1]);
  }

  /** Polls `query` until it returns `expected` (bounded: about 30 s). */
  async until(query: string, expected: number): Promise<void> {
    let last: number | undefined;
    for (let i = 0; i < 120; i++) {
      last = await this.scalar(query);
      if (last === expected) return;
      await sleep(250);
    }
    throw new Error(`${query} stayed at ${last}, expected ${expected}`);
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

const describeWithPrometheus = requirePeers(PEERS.prometheus);

describeWithPrometheus('a real Prometheus scraping fw', () => {
  describe.each(SERVICES)('$name', ({ start }) => {
    let service: RunningService;
    let prometheus: Prometheus;

    beforeAll(async () => {
      service = await start();
      prometheus = new Prometheus(service.port, await freePort());
      await prometheus.ready();
    }, 90_000);

    afterAll(async () => {
      await prometheus?.stop();
      await service?.close();
    }, 30_000);

    test('PromQL totals equal the calls made on every protocol, and their rate is not zero', async () => {
      await prometheus.until('up{job="fw"}', 1);
      const made: Record<Protocol, number> = { http: 0, websocket: 0, grpc: 0, udp: 0, tcp: 0 };
      const answeredBy = new Map<Protocol, Set<number>>();
      const total = (): number => Object.values(made).reduce((a, b) => a + b, 0);
      for (let batch = 1; batch <= 2; batch++) {
        for (const protocol of Object.keys(PLAN) as Protocol[]) {
          const pids = answeredBy.get(protocol) ?? new Set<number>();
          answeredBy.set(protocol, pids);
          // The plan's calls, then more (bounded) until every process of the service has answered this protocol.
          for (let i = 0; i < PLAN[protocol] + MAX_EXTRA_CALLS && (i < PLAN[protocol] || pids.size < service.processes); i++) {
            const reply = await service.call(protocol, 'ok');
            made[protocol]++;
            expect(reply.ok).toBe(true);
            pids.add(reply.pid as number);
          }
        }
        // Each batch is scraped before the next begins, so the counters rise between two samples.
        await prometheus.until('sum(fw_gateway_requests_total)', total());
      }
      expect(Object.fromEntries([...answeredBy].map(([p, pids]) => [p, pids.size]))).toEqual({ http: service.processes, websocket: service.processes, grpc: service.processes, udp: service.processes, tcp: service.processes });
      expect((await service.call('http', 'missing')).ok).toBe(false);
      await prometheus.until('sum(fw_gateway_requests_total)', total() + 1);

      for (const [protocol, n] of Object.entries(made)) {
        expect([protocol, await prometheus.scalar(`sum(fw_gateway_requests_total{protocol="${protocol}",status="OK"})`)]).toEqual([protocol, n]);
      }
      expect(await prometheus.scalar('sum(fw_gateway_requests_total{status!="OK"})')).toBe(1);
      expect(await prometheus.scalar('sum(fw_gateway_requests_total{status="USER_NOT_FOUND",protocol="http"})')).toBe(1);
      expect(await prometheus.scalar('sum(fw_gateway_request_duration_seconds_count)')).toBe(total() + 1);
      expect(await prometheus.scalar('sum(rate(fw_gateway_requests_total[1m]))')).toBeGreaterThan(0);
      expect(await prometheus.scalar('sum(rate(fw_gateway_request_duration_seconds_sum[1m]))')).toBeGreaterThan(0);
      expect(await prometheus.scalar('sum(fw_gateway_active_connections{protocol="tcp"})')).toBe(1);
      expect(await prometheus.scalar('process_resident_memory_bytes')).toBeGreaterThan(0);
    }, 180_000);

    test('the exposition passes promtool check metrics without a lint line', async () => {
      const res = await fetch(`http://${HOST}:${service.port}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      // The text holds every kind the gateway exports: counters, gauges, histograms, process metrics.
      for (const name of ['fw_gateway_requests_total', 'fw_gateway_request_duration_seconds_bucket', 'fw_gateway_active_connections', 'fw_gateway_messages_total', 'fw_gateway_udp_packets_lost_total', 'fw_gateway_connections_opened_total', 'process_cpu_seconds_total', 'nodejs_active_handles']) {
        expect(text).toContain(name);
      }
      // Across workers, a per-process limit is not summed and the start time is kept (the oldest worker's).
      const sample = (name: string): number | undefined => {
        const line = text.split('\n').find((l) => l.startsWith(`${name} `));
        return line === undefined ? undefined : Number(line.split(' ')[1]);
      };
      expect(sample('process_max_fds')).toBe(openFilesLimit());
      expect(sample('process_start_time_seconds')).toBeGreaterThan(0);
      const { code, output } = await promtoolCheck(text);
      expect(output).toBe('');
      expect(code).toBe(0);
    });
  });
});
