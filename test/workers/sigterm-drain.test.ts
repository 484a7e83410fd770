/**
 * SIGTERM to the primary of a `workers: 2` gateway under load, with streams
 * open on every protocol that has them (WebSocket, gRPC, TCP frames, NDJSON
 * over HTTP) and unary calls in flight on all five: readiness (the admin
 * port's `/ready`) turns false first while calls are still answered; after
 * the drain delay the drain begins; every unary call begun before SIGTERM is
 * answered; every open stream ends with its protocol's UNAVAILABLE; the
 * process exits within the drain delay plus the shutdown timeout (and a
 * margin for process exit on a loaded machine).
 */
import net from 'node:net';
import { HOST } from '../gateway/support/clients';
import type { Connection, Outcome } from '../conformance/adapter-types';
import { httpStream } from '../conformance/http-adapters';
import { waitForExit } from '../support/child-exit';
import { callOver, connectionOf, httpCall, PROTOCOLS, sleep, startWorkers, type Started } from './support/workers';

/** Long enough that a loaded machine still makes its "not ready, yet serving" call inside it. */
const DRAIN_DELAY_MS = 1500;
/** Short: the stream clients here wait 5 s for their stream to end (delay + timeout + start-up must fit). */
const SHUTDOWN_TIMEOUT_MS = 500;
/** Process start-up and exit of three processes on a busy 2-core machine. */
const EXIT_MARGIN_MS = 5000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('SIGTERM under load, workers: 2', () => {
  let s: Started;
  let adminPort: number;

  beforeAll(async () => {
    adminPort = await freePort();
    s = await startWorkers({ WORKERS: '2', DRAIN_DELAY_MS: String(DRAIN_DELAY_MS), SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS), ADMIN_PORT: String(adminPort) });
  }, 90_000);

  afterAll(async () => {
    await s?.stop();
  }, 30_000);

  it('turns readiness false first, answers every call begun before, ends streams with UNAVAILABLE, exits in time', async () => {
    expect((await httpCall(adminPort, '/ready', undefined, 'GET')).status).toBe(200);
    expect((await httpCall(adminPort, '/health', undefined, 'GET')).body.status).toBe('ok');
    // The admin routes moved off the service port.
    expect((await httpCall(s.port, '/ready', undefined, 'GET')).status).toBe(404);

    const connections: Connection[] = [];
    const streams: Array<[string, Promise<Outcome>]> = [];
    for (let i = 0; i < 2; i++) {
      for (const protocol of ['websocket', 'grpc', 'tcp'] as const) {
        const connection = await connectionOf(protocol, s.port, s.udpPort);
        connections.push(connection);
        streams.push([protocol, connection.call('Workers', 'Ticks', 'server', {}, 30_000)]);
      }
      const ndjson = httpStream(`http://${HOST}:${s.port}`, false);
      streams.push(['ndjson', ndjson.call('Workers', 'Ticks', 'server', {}, 30_000)]);
    }
    const unary = PROTOCOLS.flatMap((protocol) => [0, 1].map(() => [protocol, callOver(protocol, s, 'Slow', { ms: 600 }).then((r) => r, (e: Error) => ({ failed: e.message }))] as const));
    // Let every call reach its worker before the signal (streams tick every 50 ms).
    await sleep(300);

    s.child.kill('SIGTERM');
    const exited = waitForExit(s.child, DRAIN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS);
    let ready = 200;
    for (let i = 0; i < 100 && ready === 200; i++) {
      ready = (await httpCall(adminPort, '/ready', undefined, 'GET')).status;
      if (ready === 200) await sleep(10);
    }
    expect(ready).toBe(503);
    // Not ready, yet still serving: the drain delay is the load balancer's time to stop sending.
    expect((await callOver('http', s, 'Pid')).pid).toEqual(expect.any(Number));

    for (const [protocol, reply] of unary) expect([protocol, await reply]).toEqual([protocol, expect.objectContaining({ slept: 600 })]);
    for (const [protocol, outcome] of streams) {
      const result = await outcome;
      expect([protocol, result.items.length > 0, result.error?.code]).toEqual([protocol, true, 'UNAVAILABLE']);
      if (protocol === 'grpc') expect(result.error?.grpc).toBe(14);
    }
    expect(await exited).toBe(true);
    expect(s.child.exitCode).toBe(0);
    for (const connection of connections) connection.close();
  }, 60_000);
});
