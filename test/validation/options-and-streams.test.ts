/**
 * Validation beyond the table: the shared prototype-key guard on every JSON
 * transport (inline and generated services), every violation listed in one
 * answer (details and google.rpc.BadRequest), client streams (an invalid item
 * ends the call by default; `invalidItems: 'deliver'` hands it over),
 * `ignoreUnknownFields`, opt-in response validation, typed path and query
 * parameters, and the example's CreateMultipleUsers (spec 4.6 rule 2).
 */
import { decodeBadRequestStatus, ProtocolGateway, server, violationsOf } from 'fw';
import { GrpcError, type GrpcApplication } from 'fw/grpc';
import { startUserGateway, type RunningUserGateway } from '../../examples/user-service/gateway';
import { HOST } from '../gateway/support/clients';
import { frame, frames, rawCall } from '../grpc/fixtures/raw-http2';
import { createProbeServiceClient, ProbeServiceDescriptor, type ProbeServiceHandlers } from './generated/probe.fw';
import type { Probe } from './generated/probe';
import { BASE } from './support/probe-cases';
import { httpDriver, jsonDriversFor, PROBE_CHECK, type ProbeDriver } from './support/probe-drivers';

const handlers: ProbeServiceHandlers = {
  check: async (request) => ({ ok: true, name: request.name, items: request.age }),
  checkStream: async (requests) => {
    let items = 0;
    for await (const request of requests) if (violationsOf(request) === undefined) items += 1;
    return { ok: true, name: '', items };
  },
};

async function* fromArray<T>(items: readonly T[]): AsyncIterable<T> {
  for (const item of items) yield item;
}

async function post(port: number, path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`http://${HOST}:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(5000) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** BASE in ts-proto's shape (oneofs as `{$case, value}`), for the typed gRPC client. */
const VALID: Partial<Probe> = { name: 'Ada', must: 'm', contact: { $case: 'handle', handle: 'h' } };

const PROTOTYPE_PAYLOADS = [
  '{"__proto__":{"polluted":true},"name":"Ada","must":"m","handle":"h"}',
  '{"constructor":{"prototype":{"polluted":true}},"name":"Ada","must":"m","handle":"h"}',
  '{"\\u005f_proto__":{"polluted":true},"name":"Ada","must":"m","handle":"h"}',
];

describe('validation options and streams', () => {
  const gateways: ProtocolGateway[] = [];
  let port = 0;
  let udpPort = 0;
  let grpcApp: GrpcApplication;
  let grpcPort = 0;

  async function start(gateway: ProtocolGateway): Promise<{ port: number; udpPort: number }> {
    gateways.push(gateway);
    const a = await gateway.listen(0, HOST);
    return { port: a.port as number, udpPort: a.udpPort as number };
  }

  beforeAll(async () => {
    const gateway = new ProtocolGateway({});
    gateway.addService(ProbeServiceDescriptor, handlers);
    gateway.addService('Echo', { echo: async (request: unknown) => ({ keys: Object.keys(request as object) }) });
    ({ port, udpPort } = await start(gateway));
    grpcApp = server.grpc();
    grpcApp.addService(ProbeServiceDescriptor, handlers, { methods: { checkStream: { invalidItems: 'deliver' } } });
    grpcPort = (await grpcApp.listen(0, HOST)).port;
  });

  afterAll(async () => {
    for (const g of gateways) await g.close();
    await grpcApp.close();
  });

  it.each([
    ['a generated service', PROBE_CHECK],
    ['an inline service', { service: 'Echo', method: 'echo', grpcPath: '/Echo/echo' }],
  ])('refuses prototype keys on every JSON transport (%s)', async (_what, target) => {
    const drivers: ProbeDriver[] = await jsonDriversFor(port, udpPort, target);
    try {
      for (const payload of PROTOTYPE_PAYLOADS) {
        for (const driver of drivers) {
          const verdict = await driver.send(payload);
          const where = `${driver.name} ${payload}`;
          // @msgpack/msgpack refuses such keys itself while decoding (MALFORMED_MESSAGE); everywhere else the shared guard does.
          const expected = driver.name === 'websocket-msgpack' && !payload.includes('constructor') ? 'MALFORMED_MESSAGE' : 'INVALID_JSON';
          expect({ where, ok: verdict.ok, code: verdict.ok ? undefined : verdict.code }).toEqual({ where, ok: false, code: expected });
          if (driver.name === 'grpc+json' && !verdict.ok) expect(verdict.status).toBe(3);
          if (driver.name === 'http' && !verdict.ok) expect(verdict.status).toBe(400);
        }
      }
    } finally {
      for (const d of drivers) d.close();
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('lists every violation: in details, and as google.rpc.BadRequest in grpc-status-details-bin', async () => {
    const http = await post(port, '/api/ProbeService/check', JSON.stringify({ name: 'A', handle: 'h', high: 3 }));
    expect(http.status).toBe(400);
    const details = http.json.details as { field: string; rule: string; message: string }[];
    expect(details.map((d) => [d.field, d.rule])).toEqual([
      ['name', 'string.min_len'],
      ['must', 'required'],
      ['high', 'high.even'],
    ]);
    expect(details[2]?.message).toBe('high must be even');
    const bad: Partial<Probe> = { name: 'A', high: 3, contact: { $case: 'handle', handle: 'h' } };
    for (const address of [`${HOST}:${port}`, `${HOST}:${grpcPort}`]) {
      const client = createProbeServiceClient({ address, credentials: 'insecure' });
      try {
        const error = (await client.check(bad).catch((e: unknown) => e)) as GrpcError;
        expect(error).toBeInstanceOf(GrpcError);
        expect(error.code).toBe(3);
        const bin = error.metadata['grpc-status-details-bin'];
        expect(bin).toBeInstanceOf(Uint8Array);
        const status = decodeBadRequestStatus(bin as Uint8Array);
        expect(status.code).toBe(3);
        expect(status.violations).toEqual(http.json.details);
      } finally {
        client.close();
      }
    }
  });

  it('gRPC+JSON: a JSON message to a generated method gets a JSON reply with content-type application/grpc+json', async () => {
    const json = await rawCall(`${HOST}:${port}`, '/probe.v1.ProbeService/Check', [frame(Buffer.from(JSON.stringify(BASE)))], { headers: { 'content-type': 'application/grpc+json' } });
    expect(json.status).toBe(0);
    expect(json.headers['content-type']).toBe('application/grpc+json');
    expect(JSON.parse(frames(json.body)[0]?.payload.toString('utf8') ?? '')).toEqual({ ok: true, name: 'Ada' });
    const refused = await rawCall(`${HOST}:${port}`, '/probe.v1.ProbeService/Check', [frame(Buffer.from('{"name":'))], { headers: { 'content-type': 'application/grpc+json' } });
    expect(refused.status).toBe(3);
  });

  it('client streams: the first invalid item ends the call with VALIDATION_ERROR by default', async () => {
    const http = await post(port, '/api/ProbeService/checkStream', JSON.stringify([BASE, { ...BASE, name: 'A' }, BASE]));
    expect(http.status).toBe(400);
    expect(http.json).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'name', rule: 'string.min_len' }] });
    const wrongType = await post(port, '/api/ProbeService/checkStream', JSON.stringify([BASE, { ...BASE, name: 5 }]));
    expect(wrongType.json).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'name', rule: 'proto3_json' }] });
    const client = createProbeServiceClient({ address: `${HOST}:${port}`, credentials: 'insecure' });
    try {
      const items: Partial<Probe>[] = [VALID, { ...VALID, must: '' }];
      await expect(client.checkStream(fromArray(items))).rejects.toMatchObject({ code: 3 });
    } finally {
      client.close();
    }
  });

  it("client streams: invalidItems 'deliver' hands invalid items over with their violations (server.grpc() and gateway)", async () => {
    const items: Partial<Probe>[] = [VALID, { ...VALID, must: '' }, VALID];
    const plain = createProbeServiceClient({ address: `${HOST}:${grpcPort}`, credentials: 'insecure' });
    try {
      await expect(plain.checkStream(fromArray(items))).resolves.toMatchObject({ items: 2 });
    } finally {
      plain.close();
    }
    const gateway = new ProtocolGateway({});
    gateway.addService(ProbeServiceDescriptor, handlers, { methods: { checkStream: { invalidItems: 'deliver' } } });
    const { port: p } = await start(gateway);
    const http = await post(p, '/api/ProbeService/checkStream', JSON.stringify([BASE, { ...BASE, must: '' }, { ...BASE, name: 5 }, BASE]));
    expect(http).toEqual({ status: 200, json: { data: { ok: true, items: 2 } } });
    expect(() => new ProtocolGateway({}).addService(ProbeServiceDescriptor, handlers, { methods: { checkStream: { invalidItems: 'skip' as never } } })).toThrow(/invalidItems/);
  });

  it('ignoreUnknownFields, per gateway or per service, drops unknown members instead of refusing them', async () => {
    const strict = await post(port, '/api/ProbeService/check', JSON.stringify({ ...BASE, extra: 1 }));
    expect(strict.json).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'extra', rule: 'proto3_json' }] });
    const perGateway = new ProtocolGateway({ ignoreUnknownFields: true });
    perGateway.addService(ProbeServiceDescriptor, handlers);
    const perService = new ProtocolGateway({});
    perService.addService(ProbeServiceDescriptor, handlers, { ignoreUnknownFields: true });
    for (const g of [perGateway, perService]) {
      const { port: p } = await start(g);
      const relaxed = await post(p, '/api/ProbeService/check', JSON.stringify({ ...BASE, extra: 1 }));
      expect(relaxed).toEqual({ status: 200, json: { data: { ok: true, name: 'Ada' } } });
      // Relaxed about unknown members only: wrong types are still refused.
      expect((await post(p, '/api/ProbeService/check', JSON.stringify({ ...BASE, name: true }))).status).toBe(400);
    }
  });

  it('validateResponses checks handlers\' results against the response rules (off by default)', async () => {
    const request = JSON.stringify({ ...BASE, age: 120 });
    expect((await post(port, '/api/ProbeService/check', request)).status).toBe(200);
    const checked = new ProtocolGateway({ validateResponses: true });
    checked.addService(ProbeServiceDescriptor, handlers);
    const { port: p } = await start(checked);
    const answer = await post(p, '/api/ProbeService/check', request);
    expect(answer.status).toBe(500);
    expect(answer.json).toMatchObject({ error: 'OUTPUT_VALIDATION_ERROR', details: [{ field: 'items', rule: 'int32.lte' }] });
    const plain = server.grpc();
    plain.addService(ProbeServiceDescriptor, handlers, { validateResponses: true });
    const { port: gp } = await plain.listen(0, HOST);
    const client = createProbeServiceClient({ address: `${HOST}:${gp}`, credentials: 'insecure' });
    try {
      await expect(client.check({ ...VALID, age: 120 })).rejects.toMatchObject({ code: 13 });
      await expect(client.check({ ...VALID, age: 20 })).resolves.toMatchObject({ items: 20 });
    } finally {
      client.close();
      await plain.close();
    }
  });

  describe('the example user service', () => {
    let running: RunningUserGateway;
    let p = 0;
    beforeAll(async () => {
      running = await startUserGateway(0);
      p = running.address.port as number;
    });
    afterAll(async () => running.close());

    it('types query and path parameters by their fields and refuses what does not fit', async () => {
      const get = async (path: string): Promise<{ status: number; json: Record<string, unknown> }> => {
        const res = await fetch(`http://${HOST}:${p}${path}`, { signal: AbortSignal.timeout(5000) });
        return { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, unknown> };
      };
      expect((await get('/users?limit=5')).status).toBe(200);
      expect((await get('/users?limit=abc')).json).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'limit', rule: 'proto3_json' }] });
      expect((await get('/users?limit=1000')).json).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'limit', rule: 'int32.gte_lte' }] });
    });

    it('CreateMultipleUsers validates and creates each item on its own, counting failures (spec 4.6 rule 2)', async () => {
      const body = JSON.stringify([
        { name: 'Ann', email: 'ann@example.com' },
        { name: 'Bad', email: 'broken' },
        { name: { not: 'a string' }, email: 'x@example.com' },
        { name: 'Cy', email: 'cy@example.com' },
        { name: 'Ann again', email: 'ann@example.com' },
      ]);
      const answer = await post(p, '/api/UserService/createMultipleUsers', body);
      expect(answer.status).toBe(200);
      const data = answer.json.data as { count: number; users: { name: string }[]; errors: string[] };
      expect(data.count).toBe(2);
      expect(data.users.map((u) => u.name)).toEqual(['Ann', 'Cy']);
      expect(data.errors).toHaveLength(3);
      expect(data.errors[0]).toMatch(/^item 2: email/);
      expect(data.errors[1]).toMatch(/^item 3: name/);
      expect(data.errors[2]).toMatch(/^item 5: /);
    });
  });
});
