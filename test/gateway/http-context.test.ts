/**
 * The HTTP call context builds `client` on first read: it must hold the same
 * values as before (also when read after the client went away) and be the
 * same object on every read. Also: the `{data}` reply text and the trace
 * header when the correlation header changes after calls were served.
 */
import http from 'node:http';
import { ProtocolGateway, type RequestContext } from 'fw';
import { HOST } from './support/clients';
import { startedGateways } from './support/started-gateways';

describe('HTTP gateway call context', () => {
  const startGateway = startedGateways();
  const start = async (g: ProtocolGateway): Promise<number> => (await startGateway(g)).port;

  it('gives client id, address, port, user agent and version, the same object on every read', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    g.addService('C', {
      who: async (_r: unknown, ctx: RequestContext) => ({ first: ctx.client, same: ctx.client === ctx.client }),
    });
    const port = await start(g);
    const res = await fetch(`http://${HOST}:${port}/api/C/who`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'ctx-test/1' }, body: '{}' });
    const body = (await res.json()) as { data: { first: Record<string, unknown>; same: boolean } };
    expect(body.data.same).toBe(true);
    expect(body.data.first).toMatchObject({ address: HOST, userAgent: 'ctx-test/1', version: '1.1' });
    expect(body.data.first.id).toBe(`${HOST}:${String(body.data.first.port)}`);
    expect(typeof body.data.first.port).toBe('number');
  });

  it('keeps the peer address for a client read after the connection closed', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    let seen: { address: string; port: number } | undefined;
    let finished: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    g.addService('C', {
      late: async (_r: unknown, ctx: RequestContext) => {
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        seen = { address: ctx.client.address, port: ctx.client.port };
        finished();
        return 'late';
      },
    });
    const port = await start(g);
    const req = http.request({ host: HOST, port, method: 'POST', path: '/api/C/late', headers: { 'content-type': 'application/json' } });
    req.on('error', () => undefined);
    req.end('{}');
    await new Promise((r) => setTimeout(r, 100));
    req.destroy();
    await done;
    expect(seen?.address).toBe(HOST);
    expect(seen?.port).toBeGreaterThan(0);
  });

  it('replies {data} for every kind of result, and echoes the current trace header', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    const results: Record<string, unknown> = { str: 'q"uote\n', num: 1.5, nil: null, undef: undefined, date: new Date(0), arr: [1, undefined] };
    g.addService('R', Object.fromEntries(Object.entries(results).map(([k, v]) => [k, async () => v])));
    const port = await start(g);
    for (const [method, value] of Object.entries(results)) {
      const res = await fetch(`http://${HOST}:${port}/api/R/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-trace-id': 'trace-a' }, body: '{}' });
      expect(await res.text()).toBe(JSON.stringify({ data: value }));
      expect(res.headers.get('x-trace-id')).toBe('trace-a');
    }
    g.configureMonitoring({ tracing: { enabled: false, correlationHeader: 'X-Request-ID' } });
    const res = await fetch(`http://${HOST}:${port}/api/R/num`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'trace-b', 'x-trace-id': 'ignored' }, body: '{}' });
    expect(res.headers.get('x-request-id')).toBe('trace-b');
  });

  it('serves a service registered again with its new handlers (resolved methods are cached per registry version)', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    g.addService('V', { get: async () => 1 });
    const port = await start(g);
    const call = async (method: string): Promise<unknown> => {
      const res = await fetch(`http://${HOST}:${port}/api/V/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return res.status === 200 ? ((await res.json()) as { data: unknown }).data : res.status;
    };
    expect(await call('get')).toBe(1);
    expect(await call('Get')).toBe(1);
    g.addService('V', { get: async () => 2, other: async () => 3 });
    expect(await call('get')).toBe(2);
    expect(await call('Get')).toBe(2);
    expect(await call('other')).toBe(3);
    g.addService('V', { other: async () => 4 });
    expect(await call('get')).toBe(404);
  });

  it('reads a body sent in several chunks, and survives a client that leaves mid-body', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    g.addService('B', { echo: async (r: unknown) => r });
    const port = await start(g);
    const chunked = await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: HOST, port, method: 'POST', path: '/api/B/echo', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength('{"a":"first","b":2}')) } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.write('{"a":"first",');
      setTimeout(() => req.end('"b":2}'), 30);
    });
    expect(JSON.parse(chunked)).toEqual({ data: { a: 'first', b: 2 } });
    const left = http.request({ host: HOST, port, method: 'POST', path: '/api/B/echo', headers: { 'content-type': 'application/json', 'content-length': '100' } });
    left.on('error', () => undefined);
    left.write('{"a":');
    await new Promise((r) => setTimeout(r, 50));
    left.destroy();
    await new Promise((r) => setTimeout(r, 50));
    const res = await fetch(`http://${HOST}:${port}/api/B/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"ok":true}' });
    expect(await res.json()).toEqual({ data: { ok: true } });
  });
});
