/**
 * `createGrpcClient` (spec 4.9): per-call metadata, deadlines and AbortSignal,
 * early exit from streams, and refusals of unusable arguments.
 */
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcError, GrpcStatus } from 'fw/grpc';
import { collect, listen, newApp, stopAll } from './fixtures/servers';

type Msg = Record<string, unknown>;
type Opts = { metadata?: Record<string, string | string[]>; deadline?: Date | number; signal?: AbortSignal };
interface Client {
  meta(r: Msg, o?: Opts): Promise<Msg>;
  wait(r: Msg, o?: Opts): Promise<Msg>;
  count(r: Msg, o?: Opts): AsyncIterable<Msg>;
  sum(r: unknown, o?: Opts): Promise<Msg>;
  first(r: unknown, o?: Opts): Promise<Msg>;
  refuse(r: Msg): Promise<Msg>;
  big(r: Msg): AsyncIterable<Msg>;
  close(): void;
}
const service = { name: 'Tools', methods: { Meta: 'none', Wait: 'none', Count: 'server', Sum: 'client', First: 'client', Refuse: 'none', Big: 'server' } } as const;

describe('createGrpcClient', () => {
  let client: Client;
  let address: string;
  const stopped: string[] = [];

  beforeAll(async () => {
    const app = newApp().addService({
      name: 'Tools',
      methods: {
        Meta: { handler: async (r: Msg, context) => ({ headers: context.headers, clientIp: (r as { clientIp?: string }).clientIp, keys: Object.keys(r) }) },
        Refuse: {
          handler: async () => {
            throw new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, 'slow down', { 'x-retry-after': '5' });
          },
        },
        Big: {
          streaming: 'server',
          async *handler(r: { count?: number }) {
            const chunk = 'y'.repeat(10_000);
            for (let i = 0; i < (r.count ?? 0); i += 1) yield { i, chunk };
          },
        },
        First: {
          streaming: 'client',
          async handler(stream: AsyncIterable<Msg>) {
            for await (const message of stream) return message;
            return {};
          },
        },
        Wait: {
          handler: (_r: Msg, context) => new Promise((resolve) => context.signal.addEventListener('abort', () => resolve({}))),
        },
        Count: {
          streaming: 'server',
          async *handler(_r: Msg) {
            try {
              for (let i = 0; i < 100_000; i += 1) yield { i };
            } finally {
              stopped.push('count');
            }
          },
        },
        Sum: {
          streaming: 'client',
          async handler(numbers: AsyncIterable<{ n: number }>) {
            let total = 0;
            for await (const { n } of numbers) total += n;
            return { total };
          },
        },
      },
    });
    address = await listen(app);
    client = createGrpcClient<Client>({ address, credentials: 'insecure', service });
  });
  afterAll(async () => {
    client.close();
    await stopAll();
  });

  it('sends per-call metadata, including repeated values', async () => {
    const result = await client.meta({}, { metadata: { 'x-one': 'a', 'x-many': ['b', 'c'] } });
    // HTTP/2 carries repeated values as one comma-joined header, as grpc-js reads them.
    expect(result.headers).toMatchObject({ 'x-one': 'a', 'x-many': 'b, c' });
  });

  it('inline unary requests carry a non-enumerable clientIp (spec 4.6)', async () => {
    await expect(client.meta({ a: 1 })).resolves.toMatchObject({ clientIp: '127.0.0.1', keys: ['a'] });
  });

  it('a client-streaming handler may answer before reading every request', async () => {
    const many = Array.from({ length: 50 }, (_, n) => ({ n }));
    await expect(client.first(many)).resolves.toEqual({ n: 0 });
    await expect(client.sum([{ n: 5 }])).resolves.toEqual({ total: 5 });
  });

  it('deadline as milliseconds or a Date gives DEADLINE_EXCEEDED', async () => {
    await expect(client.wait({}, { deadline: 30 })).rejects.toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED });
    await expect(client.wait({}, { deadline: new Date(Date.now() + 30) })).rejects.toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED });
  });

  it('an AbortSignal cancels, even one aborted before the call', async () => {
    const controller = new AbortController();
    const pending = client.wait({}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: GrpcStatus.CANCELLED });
    await expect(client.wait({}, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(GrpcError);
  });

  it('leaving a server stream early cancels it and the server generator stops', async () => {
    const first = await collect(client.count({}), 5);
    expect(first).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }, { i: 4 }]);
    for (let i = 0; i < 100 && stopped.length === 0; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(stopped).toEqual(['count']);
  });

  it('client streaming accepts arrays and async iterables, and refuses anything else', async () => {
    await expect(client.sum([{ n: 1 }, { n: 2 }])).resolves.toEqual({ total: 3 });
    await expect(client.sum(42)).rejects.toThrow(/iterable/);
    // A failing request source cancels the call instead of half-sending it.
    async function* broken(): AsyncGenerator<Msg> {
      yield { n: 1 };
      throw new Error('source failed');
    }
    await expect(client.sum(broken())).rejects.toMatchObject({ code: GrpcStatus.CANCELLED });
  });

  it('a GrpcError carries its metadata to the client as trailers', async () => {
    const error = (await client.refuse({}).catch((e: unknown) => e)) as GrpcError;
    expect(error).toBeInstanceOf(GrpcError);
    expect(error.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(error.codeName).toBe('RESOURCE_EXHAUSTED');
    expect(error.metadata['x-retry-after']).toBe('5');
  });

  it('a slow reader gets every message of a large stream in order (server honours back-pressure)', async () => {
    let expected = 0;
    for await (const message of client.big({ count: 300 })) {
      expect(message.i).toBe(expected);
      expected += 1;
      if (expected % 100 === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(expected).toBe(300);
  });

  it('refuses unusable options', () => {
    expect(() => createGrpcClient({ address: '', service })).toThrow(/address/);
    expect(() => createGrpcClient({ address, service: undefined as unknown as typeof service })).toThrow(/service is required/);
    expect(() => createGrpcClient({ address, service: { name: 'X', methods: { A: 'sideways' as 'none' } } })).toThrow(/none, server, client or bidirectional/);
  });

  it('a server that is not there fails with UNAVAILABLE', async () => {
    const probe = newApp();
    const { port } = await probe.listen(0, '127.0.0.1');
    await probe.close();
    const dead = createGrpcClient<Client>({ address: `127.0.0.1:${port}`, service });
    await expect(dead.meta({}, { deadline: 3000 })).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
    dead.close();
  });
});
