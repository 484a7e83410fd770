/**
 * The rule that decides an inline method's call kind when `streaming` is not
 * given (docs/grpc.md), and that a streaming handler may return an array.
 */
import { createGrpcClient } from 'fw/grpc-client';
import { inferStreaming } from 'fw/grpc';
import { collect, listen, newApp, stopAll } from './fixtures/servers';

describe('inferStreaming', () => {
  it('async generators are server streaming, or bidirectional with a stream-named parameter', () => {
    expect(inferStreaming(async function* (request: unknown) { yield request; })).toBe('server');
    expect(inferStreaming(async function* (stream: AsyncIterable<unknown>) { yield* stream; })).toBe('bidirectional');
    expect(inferStreaming(async function* (requestStream: AsyncIterable<unknown>) { yield* requestStream; })).toBe('bidirectional');
    const methods = { async *Chat(messages: AsyncIterable<unknown>) { yield* messages; } };
    expect(inferStreaming(methods.Chat)).toBe('bidirectional');
  });

  it('plain functions are unary, or client streaming with a stream-named parameter', () => {
    expect(inferStreaming(async (request: unknown) => request)).toBe('none');
    expect(inferStreaming(async () => ({}))).toBe('none');
    expect(inferStreaming(async ({ id }: { id: string }) => ({ id }))).toBe('none');
    expect(inferStreaming(async (requests: AsyncIterable<unknown>) => requests)).toBe('client');
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    expect(inferStreaming(async (chunks: unknown, _context: unknown) => chunks)).toBe('client');
    expect(inferStreaming(function upload(incomingRecords: unknown) { return incomingRecords; })).toBe('client');
  });
});

describe('streaming handler returning an array', () => {
  afterAll(stopAll);

  it('streams the array items', async () => {
    const app = newApp().addService({ name: 'Arr', methods: { List: { streaming: 'server', handler: () => [{ n: 1 }, { n: 2 }] } } });
    const client = createGrpcClient<{ list(r: object): AsyncIterable<unknown>; close(): void }>({ address: await listen(app), service: { name: 'Arr', methods: { List: 'server' } } });
    await expect(collect(client.list({}))).resolves.toEqual([{ n: 1 }, { n: 2 }]);
    client.close();
  });

  it('anything else from a streaming handler is INTERNAL (the gateway\'s INTERNAL_ERROR message), reported to onUnexpectedError', async () => {
    const seen: unknown[] = [];
    const app = newApp()
      .onUnexpectedError((error) => seen.push(error))
      .addService({ name: 'Bad', methods: { List: { streaming: 'server', handler: () => 42 } } });
    const client = createGrpcClient<{ list(r: object): AsyncIterable<unknown>; close(): void }>({ address: await listen(app), service: { name: 'Bad', methods: { List: 'server' } } });
    await expect(collect(client.list({}))).rejects.toMatchObject({ code: 13, message: 'A streaming handler must return an async iterable' });
    expect(seen[0]).toMatchObject({ code: 'INTERNAL_ERROR', path: '/Bad/List' });
    client.close();
  });
});
