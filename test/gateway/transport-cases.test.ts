/**
 * The shared transport suite: the same calls over HTTP, WebSocket, gRPC, UDP
 * and TCP on one gateway port must give the same results and the same error
 * codes (spec 7.3).
 */
import { ProtocolGateway, ServiceError } from 'fw';
import { allDrivers, type Driver } from './support/drivers';
import { HOST } from './support/clients';

describe('one gateway, five protocols, one port', () => {
  let gateway: ProtocolGateway;
  let drivers: Driver[];

  beforeAll(async () => {
    gateway = new ProtocolGateway({});
    gateway.addService('Echo', {
      name: 'Echo',
      methods: {
        echo: { handler: async (req: unknown) => req },
        whoami: {
          handler: async (_req: unknown, ctx: { protocol: string; client: { address: string }; tracing: { traceId: string } }) => ({
            protocol: ctx.protocol,
            address: ctx.client.address,
            traceId: ctx.tracing.traceId,
          }),
        },
        missing: {
          handler: async () => {
            throw new ServiceError('USER_NOT_FOUND', 'User 42 not found', 404, { id: '42' });
          },
        },
        crash: {
          handler: async () => {
            throw new Error('secret internals');
          },
        },
        create: {
          input: { type: 'object', properties: { name: { type: 'string', required: true }, age: { type: 'number' } } },
          handler: async (req: { name: string }) => ({ created: req.name }),
        },
        badOutput: {
          output: { type: 'object', properties: { id: { type: 'string', required: true } } },
          handler: async () => ({ nope: true }),
        },
        unencodable: { handler: async () => ({ n: BigInt(10) }) },
        limited: { rateLimit: { requests: 2, window: 60_000 }, handler: async () => ({ ok: true }) },
      },
    });
    const address = await gateway.listen(0, HOST);
    drivers = await allDrivers(address.port as number, 'Echo', ['echo', 'whoami', 'missing', 'crash', 'create', 'badOutput', 'limited', 'unencodable']);
  });

  afterAll(async () => {
    for (const d of drivers ?? []) d.close();
    await gateway?.close();
  });

  const each = (name: string, fn: (d: Driver) => Promise<void>): void => {
    for (const protocol of ['http', 'websocket', 'grpc', 'udp', 'tcp'] as const) {
      it(`${name} [${protocol}]`, async () => {
        const d = drivers.find((x) => x.protocol === protocol) as Driver;
        await fn(d);
      });
    }
  };

  each('echoes a unary call', async (d) => {
    const out = await d.call('Echo', 'echo', { hello: 'world', n: 3 });
    expect(out).toMatchObject({ ok: true, data: { hello: 'world', n: 3 } });
  });

  each('fills RequestContext for the protocol and correlates the trace id', async (d) => {
    const out = await d.call('Echo', 'whoami', {}, { traceId: 'abc123' });
    expect(out.ok).toBe(true);
    const data = (out as { data: Record<string, unknown> }).data;
    expect(data.protocol).toBe(d.protocol);
    expect(data.address).toMatch(/127\.0\.0\.1/);
    expect(data.traceId).toBe('abc123');
    if (d.protocol !== 'grpc') expect(out.traceId).toBe('abc123');
  });

  each('mints a 32-hex trace id when none is sent', async (d) => {
    const out = await d.call('Echo', 'whoami', {});
    expect((out as { data: { traceId: string } }).data.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  each('accepts PascalCase method names', async (d) => {
    if (d.protocol === 'grpc') return; // gRPC paths are exact; /Echo/Echo is registered as an alias and tested below.
    const out = await d.call('Echo', 'Echo', { x: 1 });
    expect(out).toMatchObject({ ok: true, data: { x: 1 } });
  });

  each('carries a ServiceError with the same code everywhere', async (d) => {
    const out = await d.call('Echo', 'missing', {});
    expect(out).toMatchObject({ ok: false, code: 'USER_NOT_FOUND', message: 'User 42 not found', details: { id: '42' } });
    if (d.protocol === 'http') expect(out).toMatchObject({ httpStatus: 404 });
    if (d.protocol === 'grpc') expect(out).toMatchObject({ grpcStatus: 5 });
  });

  each('hides internal errors behind INTERNAL_ERROR', async (d) => {
    const out = await d.call('Echo', 'crash', {});
    expect(out).toMatchObject({ ok: false, code: 'INTERNAL_ERROR' });
    expect(JSON.stringify(out)).not.toContain('secret internals');
    if (d.protocol === 'http') expect(out).toMatchObject({ httpStatus: 500 });
    if (d.protocol === 'grpc') expect(out).toMatchObject({ grpcStatus: 13 });
  });

  each('answers a result that cannot be encoded with an error, without crashing', async (d) => {
    const out = await d.call('Echo', 'unencodable', {});
    expect(out.ok).toBe(false);
    if (d.protocol === 'grpc') expect(out).toMatchObject({ grpcStatus: 13 });
    else expect(out).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(await d.call('Echo', 'echo', { still: 'up' })).toMatchObject({ ok: true });
  });

  each('validates input and reports details', async (d) => {
    const out = await d.call('Echo', 'create', { age: 'old' });
    expect(out).toMatchObject({ ok: false, code: 'VALIDATION_ERROR' });
    const details = (out as { details: { path: string }[] }).details;
    expect(details.map((x) => x.path)).toEqual(expect.arrayContaining(['/name', '/age']));
    if (d.protocol === 'http') expect(out).toMatchObject({ httpStatus: 400 });
    if (d.protocol === 'grpc') expect(out).toMatchObject({ grpcStatus: 3 });
    const good = await d.call('Echo', 'create', { name: 'Ada' });
    expect(good).toMatchObject({ ok: true, data: { created: 'Ada' } });
  });

  each('validates output', async (d) => {
    const out = await d.call('Echo', 'badOutput', {});
    expect(out).toMatchObject({ ok: false, code: 'OUTPUT_VALIDATION_ERROR' });
  });

  each('refuses an unknown service and method', async (d) => {
    const service = await d.call('Nope', 'echo', {});
    if (d.protocol === 'grpc') {
      expect(service).toMatchObject({ ok: false, grpcStatus: 12 }); // grpc-js: no such path
    } else {
      expect(service).toMatchObject({ ok: false, code: 'SERVICE_NOT_FOUND' });
      const method = await d.call('Echo', 'nope', {});
      expect(method).toMatchObject({ ok: false, code: 'METHOD_NOT_FOUND' });
    }
  });

  it('takes the trace id from W3C traceparent when no X-Trace-ID is sent, and refuses unsafe ids', async () => {
    const port = (gateway.address?.port ?? 0) as number;
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await fetch(`http://${HOST}:${port}/api/Echo/whoami`, { method: 'POST', body: '{}', headers: { traceparent: tp, 'content-type': 'application/json' }, signal: AbortSignal.timeout(5000) });
    expect(res.headers.get('x-trace-id')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(((await res.json()) as { data: { traceId: string } }).data.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    const unsafe = await fetch(`http://${HOST}:${port}/api/Echo/whoami`, { method: 'POST', body: '{}', headers: { 'x-trace-id': 'a b<script>', 'content-type': 'application/json' }, signal: AbortSignal.timeout(5000) });
    expect(unsafe.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('rate-limits per method with RATE_LIMIT_EXCEEDED / 429 / RESOURCE_EXHAUSTED', async () => {
    // The limit (2 per minute per client address) is shared by all protocols from 127.0.0.1.
    const results = [];
    for (const d of drivers) results.push(await d.call('Echo', 'limited', {}));
    expect(results.slice(0, 2).every((r) => r.ok)).toBe(true);
    for (const r of results.slice(2)) expect(r).toMatchObject({ ok: false, code: 'RATE_LIMIT_EXCEEDED' });
    const http = results[0]?.ok === false ? results[0] : undefined;
    expect(http).toBeUndefined();
    const grpcResult = results[2] as { grpcStatus?: number };
    expect(grpcResult.grpcStatus).toBe(8);
  });
});
