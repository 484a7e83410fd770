/**
 * HTTP/2 limits on `server.grpc()` and on the gateway's one port alike
 * (docs/security.md): a stream flood on one connection is refused while
 * memory stays flat and other clients are served, streams whose request never
 * completes are reset, and idle connections are closed. The server runs in a
 * child process so that its RSS is measured apart from the test's own.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http2 from 'node:http2';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { ProtocolGateway, server } from 'fw';
import { withTimeout } from '../gateway/support/clients';
import { waitForExit } from '../support/child-exit';

const HOST = '127.0.0.1';
const STREAMS = 10_000;

interface Child {
  process: ChildProcess;
  port: number;
  rss(): Promise<number>;
}

async function startChild(kind: 'grpc' | 'gateway', limits: Record<string, number>): Promise<Child> {
  const child = fork(path.join(__dirname, 'fixtures', 'flood-server.js'), [kind, JSON.stringify(limits)], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    // Generous: the child transpiles the runtime on load, slow while the whole suite runs on two cores.
    const timer = setTimeout(() => reject(new Error('flood server did not start')), 90_000);
    child.once('message', (m: { port: number }) => {
      clearTimeout(timer);
      resolve(m.port);
    });
    child.once('exit', (code) => reject(new Error(`flood server exited with ${String(code)}`)));
  });
  const rss = (): Promise<number> =>
    new Promise((resolve) => {
      child.once('message', (m: { rss: number }) => resolve(m.rss));
      child.send('rss');
    });
  return { process: child, port, rss };
}

async function stopChild(child: Child | undefined): Promise<void> {
  if (child === undefined) return;
  child.process.disconnect();
  if (!(await waitForExit(child.process, 5000))) child.process.kill('SIGKILL');
}

/**
 * Unary JSON call /Echo/Echo through grpc-js: the well-behaved second client.
 * Retried once when its stream was refused: with a 300 ms idle limit, a test
 * process busy opening the flood may connect and send its request only after
 * the server has closed the connection as idle, and a refused stream was never
 * processed, so a client may send it again (RFC 9113 §8.7).
 */
async function echo(port: number, value: unknown): Promise<unknown> {
  try {
    return await echoOnce(port, value);
  } catch (error) {
    if (!String((error as Error).message).includes('NGHTTP2_REFUSED_STREAM')) throw error;
    return echoOnce(port, value);
  }
}

function echoOnce(port: number, value: unknown): Promise<unknown> {
  const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
  const parse = (b: Buffer): unknown => JSON.parse(b.toString('utf8'));
  // A connection of its own: a pooled one left idle by an earlier call may be closing (maxConnectionIdle is 300 ms here).
  const client = new grpc.Client(`${HOST}:${port}`, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
  return new Promise<unknown>((resolve, reject) => {
    client.makeUnaryRequest('/Echo/Echo', json, parse, value, { deadline: Date.now() + 10_000 }, (error, reply) => (error ? reject(error) : resolve(reply)));
  }).finally(() => client.close());
}

const headers = { ':method': 'POST', ':path': '/Echo/Echo', 'content-type': 'application/grpc+json', te: 'trailers' };

/** Opens `count` streams (HEADERS, no END_STREAM) on one connection; resolves the rst codes once all have closed. */
function openStreams(session: http2.ClientHttp2Session, count: number): { codes: Map<number, number>; done: Promise<void> } {
  const codes = new Map<number, number>();
  let closed = 0;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  for (let i = 0; i < count; i++) {
    const stream = session.request(headers, { endStream: false });
    stream.on('error', () => undefined);
    stream.on('close', () => {
      codes.set(stream.rstCode, (codes.get(stream.rstCode) ?? 0) + 1);
      if (++closed === count) resolveDone();
    });
  }
  return { codes, done };
}

describe.each(['grpc', 'gateway'] as const)('HTTP/2 limits on %s', (kind) => {
  let child: Child | undefined;

  // One server per kind (starting one transpiles the runtime: seconds), with short timeouts to observe.
  beforeAll(async () => {
    child = await startChild(kind, { maxConcurrentStreams: 100, requestTimeout: 300, maxConnectionIdle: 300 });
  }, 120_000);

  afterAll(async () => {
    await stopChild(child);
    child = undefined;
  });

  it(`refuses a flood of ${STREAMS} streams on one connection, RSS grows < 50 MB, a second client is served meanwhile`, async () => {
    const port = portOf(child);
    expect(await echo(port, { warm: 1 })).toEqual({ warm: 1 });
    const rss = (child as Child).rss;
    const before = await rss();
    // peerMaxConcurrentStreams: send every HEADERS at once, before the server's SETTINGS can hold the client back.
    const hostile = http2.connect(`http://${HOST}:${port}`, { peerMaxConcurrentStreams: STREAMS * 2 });
    hostile.on('error', () => undefined);
    const flood = openStreams(hostile, STREAMS);
    const served = await Promise.all([1, 2, 3].map((n) => echo(port, { n })));
    expect(served).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const during = await rss();
    await withTimeout(flood.done, 20_000, 'every flood stream closed');
    const peak = Math.max(during, await rss());
    // REFUSED_STREAM past the 100-stream cap; nghttp2 then tears the abusive session down.
    expect(flood.codes.get(http2.constants.NGHTTP2_REFUSED_STREAM) ?? 0).toBeGreaterThan(0);
    expect([...flood.codes.values()].reduce((a, b) => a + b, 0)).toBe(STREAMS);
    expect(hostile.destroyed || hostile.closed).toBe(true);
    expect((peak - before) / 2 ** 20).toBeLessThan(50);
    expect(await echo(port, { after: true })).toEqual({ after: true });
  }, 60_000);

  it('caps a compliant client at maxConcurrentStreams and resets streams whose request never completes', async () => {
    const session = http2.connect(`http://${HOST}:${portOf(child)}`);
    session.on('error', () => undefined);
    await withTimeout(new Promise<void>((resolve) => session.once('remoteSettings', () => resolve())), 5000, 'settings');
    expect(session.remoteSettings.maxConcurrentStreams).toBe(100);
    const held = openStreams(session, 200);
    // The server resets each silent stream with CANCEL after requestTimeout; the queued second hundred then gets its turn.
    await withTimeout(held.done, 15_000, 'silent streams reset');
    expect(held.codes.get(http2.constants.NGHTTP2_CANCEL)).toBe(200);
    session.destroy();
  }, 30_000);

  it('closes a connection that sent only the preface after maxConnectionIdle', async () => {
    const session = http2.connect(`http://${HOST}:${portOf(child)}`);
    session.on('error', () => undefined);
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    await withTimeout(Promise.all([goaway, closed]), 10_000, 'idle connection closed');
  }, 20_000);

});

it('refuses HTTP/2 options that are not positive integers at start', () => {
  expect(() => new ProtocolGateway({ grpc: { maxConcurrentStreams: 0 } })).toThrow(/maxConcurrentStreams/);
  expect(() => server.grpc().withOptions({ grpc: { maxSessionMemory: -1 } })).toThrow(/maxSessionMemory/);
  expect(() => server.grpc().withOptions({ grpc: { requestTimeout: 1.5 } })).toThrow(/requestTimeout/);
});

function portOf(child: Child | undefined): number {
  if (child === undefined) throw new Error('no child');
  return child.port;
}
