/**
 * The lean HTTP/2 unary client the forwarder uses on plain channels: the
 * gRPC wire behaviour grpc-js's client gave (metadata, deadlines,
 * cancellation, statuses with trailers), a clear error for every malformed
 * answer, and cancellation of a forwarded call when the gRPC caller of the
 * gateway goes away.
 */
import fs from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ProtocolGateway } from 'fw';
import { H2UnaryChannel, type H2CallError } from '../../../runtime/gateway/discovery/h2-unary-channel';
import { usesLeanUnary } from '../../../runtime/gateway/discovery/grpc-forwarder';
import { until } from './test-instances';

const HOST = '127.0.0.1';
type Outcome = { error: H2CallError | null; message: Buffer | undefined; answered: boolean };

function call(channel: H2UnaryChannel, p: string, body: Buffer, md: Record<string, string> = {}, deadline?: number): { done: Promise<Outcome>; cancel(): void } {
  let cancel = (): void => undefined;
  const done = new Promise<Outcome>((resolve) => {
    const started = channel.unary(p, body, md, deadline, (error, message, answered) => resolve({ error, message, answered }));
    cancel = () => started.cancel();
  });
  return { done, cancel: () => cancel() };
}

const raw = { serialize: (b: Buffer) => b, deserialize: (b: Buffer) => b };
function rawMethod(name: string): grpc.MethodDefinition<Buffer, Buffer> {
  return { path: `/Raw/${name}`, requestStream: false, responseStream: false, requestSerialize: raw.serialize, requestDeserialize: raw.deserialize, responseSerialize: raw.serialize, responseDeserialize: raw.deserialize };
}

describe('lean unary channel against a grpc-js server', () => {
  let server: grpc.Server;
  let port: number;
  const seen: { md: grpc.Metadata; deadline: grpc.Deadline }[] = [];
  const cancelled: string[] = [];

  beforeAll(async () => {
    server = new grpc.Server();
    server.addService({ Echo: rawMethod('Echo'), Fail: rawMethod('Fail'), Hold: rawMethod('Hold'), Busy: rawMethod('Busy'), LateBusy: rawMethod('LateBusy') } as grpc.ServiceDefinition, {
      Busy: (_c: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb({ code: grpc.status.UNAVAILABLE, details: 'busy' }),
      LateBusy: (c: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
        c.sendMetadata(new grpc.Metadata());
        cb({ code: grpc.status.UNAVAILABLE, details: 'busy after headers' });
      },
      Echo: (c: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
        seen.push({ md: c.metadata, deadline: c.getDeadline() });
        cb(null, Buffer.concat([Buffer.from('echo:'), c.request]));
      },
      Fail: (_c: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
        const md = new grpc.Metadata();
        md.set('x-error-code', 'USER_NOT_FOUND');
        cb({ code: grpc.status.NOT_FOUND, details: 'no user 7 — café', metadata: md });
      },
      Hold: (c: grpc.ServerUnaryCall<Buffer, Buffer>) => {
        c.on('cancelled', () => cancelled.push(c.request.toString()));
      },
    });
    port = await new Promise<number>((resolve, reject) => server.bindAsync(`${HOST}:0`, grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  });

  afterAll(() => server.forceShutdown());

  test('a call carries its message, metadata and deadline, and returns the answer', async () => {
    const channel = new H2UnaryChannel(`${HOST}:${port}`);
    try {
      const r = await call(channel, '/Raw/Echo', Buffer.from('hi'), { 'x-trace-id': 'trace-1', authorization: 'Bearer t' }, Date.now() + 5000).done;
      expect(r.error).toBeNull();
      expect(r.answered).toBe(true);
      expect(r.message?.toString()).toBe('echo:hi');
      const last = seen[seen.length - 1];
      expect(last?.md.get('x-trace-id')).toEqual(['trace-1']);
      expect(last?.md.get('authorization')).toEqual(['Bearer t']);
      expect(Number(last?.deadline)).toBeLessThan(Date.now() + 6000);
      // An empty message is a valid message too; many calls share the one connection.
      const many = await Promise.all(Array.from({ length: 50 }, () => call(channel, '/Raw/Echo', Buffer.alloc(0)).done));
      expect(many.every((m) => m.error === null && m.message?.toString() === 'echo:')).toBe(true);
    } finally {
      channel.close();
    }
  });

  test('a status with trailers comes back shaped like a grpc-js ServiceError; an unknown method is UNIMPLEMENTED', async () => {
    const channel = new H2UnaryChannel(`${HOST}:${port}`);
    try {
      const r = await call(channel, '/Raw/Fail', Buffer.alloc(0)).done;
      // grpc-js answers a failing handler trailers-only.
      expect(r.answered).toBe(false);
      expect(r.error).toMatchObject({ code: grpc.status.NOT_FOUND, details: 'no user 7 — café', message: '5 NOT_FOUND: no user 7 — café' });
      expect(r.error?.metadata.get('x-error-code')).toEqual(['USER_NOT_FOUND']);
      const missing = await call(channel, '/Raw/Nope', Buffer.alloc(0)).done;
      expect(missing.error?.code).toBe(grpc.status.UNIMPLEMENTED);
    } finally {
      channel.close();
    }
  });

  test('UNAVAILABLE without response headers (trailers-only) counts as unanswered, after headers as answered', async () => {
    const channel = new H2UnaryChannel(`${HOST}:${port}`);
    try {
      expect(await call(channel, '/Raw/Busy', Buffer.alloc(0)).done).toMatchObject({ answered: false, error: { code: grpc.status.UNAVAILABLE, details: 'busy' } });
      expect(await call(channel, '/Raw/LateBusy', Buffer.alloc(0)).done).toMatchObject({ answered: true, error: { code: grpc.status.UNAVAILABLE, details: 'busy after headers' } });
    } finally {
      channel.close();
    }
  });

  test('deadline and cancel end the call on both sides', async () => {
    const channel = new H2UnaryChannel(`${HOST}:${port}`);
    try {
      const late = await call(channel, '/Raw/Hold', Buffer.from('deadline'), {}, Date.now() + 50).done;
      expect(late.error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
      const held = call(channel, '/Raw/Hold', Buffer.from('cancel'));
      setTimeout(() => held.cancel(), 30);
      expect((await held.done).error?.code).toBe(grpc.status.CANCELLED);
      await until(() => cancelled.includes('deadline') && cancelled.includes('cancel'), 5000);
    } finally {
      channel.close();
    }
  });

  test('nothing listening: UNAVAILABLE, before any answer (so the forwarder may retry); a closed channel refuses calls', async () => {
    const probe = http2.createServer();
    await new Promise<void>((r) => probe.listen(0, HOST, r));
    const freePort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const channel = new H2UnaryChannel(`${HOST}:${freePort}`);
    const r = await call(channel, '/Raw/Echo', Buffer.alloc(0)).done;
    expect(r).toMatchObject({ answered: false, error: { code: grpc.status.UNAVAILABLE } });
    // Right after a failed connection attempt, calls fail fast instead of reconnecting each time.
    const again = await call(channel, '/Raw/Echo', Buffer.alloc(0)).done;
    expect(again).toMatchObject({ answered: false, error: { code: grpc.status.UNAVAILABLE, details: expect.stringContaining('the last attempt failed') } });
    channel.close();
    const after = await call(channel, '/Raw/Echo', Buffer.alloc(0)).done;
    expect(after.error).toMatchObject({ code: grpc.status.UNAVAILABLE, details: 'Channel has been shut down' });
  });
});

describe('lean unary channel refuses malformed answers', () => {
  let server: http2.Http2Server;
  let channel: H2UnaryChannel;

  beforeAll(async () => {
    server = http2.createServer();
    server.on('stream', (stream, headers) => {
      const ok = { ':status': 200, 'content-type': 'application/grpc' };
      const withStatus = (): void => {
        stream.respond(ok, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      };
      stream.on('error', () => undefined);
      switch (headers[':path']) {
        case '/Bad/NotGrpc':
          stream.respond({ ':status': 404, 'content-type': 'text/plain' });
          stream.end('no such page');
          break;
        case '/Bad/Unframed':
          withStatus();
          stream.end('plain text, no gRPC frame');
          break;
        case '/Bad/Compressed':
          withStatus();
          stream.end(Buffer.from([1, 0, 0, 0, 2, 0x1f, 0x8b]));
          break;
        case '/Bad/Huge': {
          withStatus();
          stream.write(Buffer.from([0, 0, 0x50, 0, 0])); // declares 5 MiB
          const chunk = Buffer.alloc(1 << 20);
          for (let i = 0; i < 5; i++) stream.write(chunk);
          stream.end();
          break;
        }
        case '/Bad/NoStatus':
          stream.respond(ok);
          stream.end(Buffer.from([0, 0, 0, 0, 0]));
          break;
        case '/Bad/Reset':
          stream.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
          break;
        default:
          stream.respond({ ':status': 500 });
          stream.end();
      }
    });
    server.on('error', () => undefined);
    await new Promise<void>((r) => server.listen(0, HOST, r));
    channel = new H2UnaryChannel(`${HOST}:${(server.address() as AddressInfo).port}`);
  });

  afterAll(async () => {
    channel.close();
    await new Promise((r) => server.close(r));
  });

  test.each([
    ['/Bad/NotGrpc', grpc.status.UNIMPLEMENTED, 'Received HTTP status code 404'],
    ['/Bad/Unframed', grpc.status.INTERNAL, 'Expected exactly one response message'],
    ['/Bad/Compressed', grpc.status.INTERNAL, 'Compressed response not supported'],
    ['/Bad/Huge', grpc.status.RESOURCE_EXHAUSTED, 'larger than max'],
    ['/Bad/NoStatus', grpc.status.INTERNAL, 'Call ended without a gRPC status'],
    ['/Bad/Reset', grpc.status.RESOURCE_EXHAUSTED, 'RST_STREAM with code 11'],
  ])('%s → status %i', async (p, code, text) => {
    const r = await call(channel, p, Buffer.alloc(0)).done;
    expect(r.error?.code).toBe(code);
    expect(r.error?.message).toContain(text);
    // The connection stays usable for the next call.
    expect(channel).toBeInstanceOf(H2UnaryChannel);
  });

  test('custom credentials or channel options keep calls on grpc-js', () => {
    expect(usesLeanUnary({})).toBe(true);
    expect(usesLeanUnary({ deadlineMs: 100, forwardHeaders: [] })).toBe(true);
    expect(usesLeanUnary({ credentials: grpc.credentials.createInsecure() })).toBe(false);
    expect(usesLeanUnary({ channelOptions: { 'grpc.keepalive_time_ms': 10_000 } })).toBe(false);
  });
});

describe('through a gateway over gRPC', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-lean-'));
  const protoFile = path.join(dir, 'hold.proto');
  fs.writeFileSync(protoFile, 'syntax = "proto3"; package t; service HoldService { rpc Hold (Req) returns (Req); }\nmessage Req { string tag = 1; }\n');
  const json = { serialize: (v: unknown) => Buffer.from(JSON.stringify(v)), deserialize: (b: Buffer) => JSON.parse(b.toString()) as { tag: string } };
  let instance: grpc.Server;
  let gateway: ProtocolGateway;
  let port: number;
  const cancelled: string[] = [];

  beforeAll(async () => {
    instance = new grpc.Server();
    const hold: grpc.MethodDefinition<{ tag: string }, unknown> = {
      path: '/HoldService/Hold', requestStream: false, responseStream: false,
      requestSerialize: json.serialize, requestDeserialize: json.deserialize, responseSerialize: json.serialize, responseDeserialize: json.deserialize,
    };
    instance.addService({ Hold: hold } as grpc.ServiceDefinition, {
      Hold: (c: grpc.ServerUnaryCall<{ tag: string }, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        if (c.request.tag === 'now') cb(null, { tag: 'done' });
        else c.on('cancelled', () => cancelled.push(c.request.tag));
      },
    });
    const instancePort = await new Promise<number>((resolve, reject) => instance.bindAsync(`${HOST}:0`, grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.configureGRPC({ protoFiles: [protoFile], services: { 't.HoldService': 'HoldService' }, methodMapping: { Hold: 'hold' } });
    gateway.configureServiceDiscovery({ provider: 'static', services: { HoldService: { instances: [{ host: HOST, port: instancePort }] } } });
    port = (await gateway.listen(0, HOST)).port as number;
  });

  afterAll(async () => {
    await gateway?.close();
    instance?.forceShutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a finished call answers; a gRPC caller cancelling cancels the forwarded call at the instance', async () => {
    const pkg = grpc.loadPackageDefinition(loadSync(protoFile)) as unknown as { t: { HoldService: grpc.ServiceClientConstructor } };
    const client = new pkg.t.HoldService(`${HOST}:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
      Hold(req: unknown, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r: { tag: string }) => void): grpc.ClientUnaryCall;
    };
    try {
      const done = await new Promise<{ tag: string }>((resolve, reject) => client.Hold({ tag: 'now' }, { deadline: Date.now() + 5000 }, (e, r) => (e ? reject(e) : resolve(r))));
      expect(done.tag).toBe('done');
      let outcome: grpc.ServiceError | null = null;
      const settled = new Promise<void>((resolve) => {
        const c = client.Hold({ tag: 'held' }, { deadline: Date.now() + 10_000 }, (e) => {
          outcome = e;
          resolve();
        });
        setTimeout(() => c.cancel(), 100);
      });
      await settled;
      expect((outcome as grpc.ServiceError | null)?.code).toBe(grpc.status.CANCELLED);
      await until(() => cancelled.includes('held'), 5000);
    } finally {
      client.close();
    }
  });
});
