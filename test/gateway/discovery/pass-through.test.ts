/**
 * Forwarding without re-encoding (runtime/gateway/pass-through.ts): a gRPC
 * call to a service the gateway knows by descriptor and only forwards
 * reaches the instance as the bytes the client sent, and the instance's
 * bytes come back unchanged, in every call kind, with metadata both ways,
 * status and details, the deadline and cancellation passed on. The instance
 * here (raw-h2-instance.ts) keeps the bytes it received; the messages are
 * encoded non-canonically (a field twice, an unknown field), which a decode
 * and re-encode would not keep. When something at the gateway needs the
 * decoded message (buf.validate rules, an interceptor) it is decoded, as the
 * rule says.
 */
import * as grpc from '@grpc/grpc-js';
import { ProtocolGateway } from 'fw';
import { TestServiceDescriptor } from '../../interop/grpc/generated/src/proto/grpc/testing/test.fw';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { HOST } from '../support/clients';
import { echoAll, frame, reply, startRawInstance, type RawInstance } from './raw-h2-instance';
import { until } from './test-instances';

const TEST = '/grpc.testing.TestService';
const id = (b: Buffer): Buffer => b;

/** SimpleRequest with response_size written twice (5, then 7) and unknown field 1000: not what an encoder writes. */
const NON_CANONICAL = Buffer.from([0x10, 0x05, 0x10, 0x07, 0xc0, 0x3e, 0x01]);
/** GetUserRequest {id} written twice plus unknown field 1000: valid under user.proto's rules. */
const USER_NON_CANONICAL = Buffer.from([0x0a, 0x01, 0x61, 0x0a, 0x01, 0x62, 0xc0, 0x3e, 0x01]);

interface Reply<T> {
  value: T;
  headers: grpc.Metadata;
  status: grpc.StatusObject;
}

function unary(client: grpc.Client, path: string, bytes: Buffer, md = new grpc.Metadata(), options: grpc.CallOptions = {}): Promise<Reply<Buffer>> {
  return new Promise((resolve, reject) => {
    let headers = new grpc.Metadata();
    let value: Buffer | undefined;
    const call = client.makeUnaryRequest(path, id, id, bytes, md, { deadline: Date.now() + 10_000, ...options }, (error, response) => {
      if (error !== null) reject(error);
      else value = response;
    });
    call.on('metadata', (m) => (headers = m));
    call.on('status', (status) => {
      if (value !== undefined) resolve({ value, headers, status });
    });
  });
}

function collect(call: grpc.ClientReadableStream<Buffer> | grpc.ClientDuplexStream<Buffer, Buffer>): Promise<Reply<Buffer[]>> {
  return new Promise((resolve, reject) => {
    const value: Buffer[] = [];
    let headers = new grpc.Metadata();
    call.on('metadata', (m) => (headers = m));
    call.on('data', (m: Buffer) => value.push(m));
    call.on('error', reject);
    call.on('status', (status) => {
      if (status.code === grpc.status.OK) resolve({ value, headers, status });
    });
  });
}

describe('gRPC forwarding passes message bytes through', () => {
  let raw: RawInstance;
  let gateway: ProtocolGateway;
  let client: grpc.Client;

  beforeAll(async () => {
    raw = await startRawInstance();
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.configureServiceDiscovery({
      provider: 'static',
      services: {
        TestService: { descriptor: TestServiceDescriptor, instances: [{ host: HOST, port: raw.port }] },
        UserService: { descriptor: UserServiceDescriptor, instances: [{ host: HOST, port: raw.port }] },
      },
    });
    const { port } = await gateway.listen(0, HOST);
    client = new grpc.Client(`${HOST}:${port as number}`, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await gateway?.close();
    await raw?.close();
  });

  beforeEach(() => {
    raw.calls.length = 0;
    raw.handle = echoAll;
  });

  it('unary: the instance gets the client bytes, the client gets the instance bytes', async () => {
    const answer = Buffer.from([0x12, 0x00, 0x12, 0x00, 0xc8, 0x3e, 0x02]);
    raw.handle = async (stream, _call, messages) => {
      for await (const _ of messages) void _;
      reply(stream, [answer]);
    };
    const { value } = await unary(client, `${TEST}/UnaryCall`, NON_CANONICAL);
    expect(raw.calls[0]?.path).toBe(`${TEST}/UnaryCall`);
    expect(raw.calls[0]?.messages).toEqual([NON_CANONICAL]);
    expect(value).toEqual(answer);
  });

  it('server, client and bidi streams: every message byte-identical both ways', async () => {
    raw.handle = async (stream, _call, messages) => {
      const all: Buffer[] = [];
      for await (const m of messages) all.push(m);
      reply(stream, [...all, ...all, ...all]);
    };
    const server = await collect(client.makeServerStreamRequest(`${TEST}/StreamingOutputCall`, id, id, NON_CANONICAL, new grpc.Metadata(), { deadline: Date.now() + 10_000 }));
    expect(server.value).toEqual([NON_CANONICAL, NON_CANONICAL, NON_CANONICAL]);
    expect(raw.calls[0]?.messages).toEqual([NON_CANONICAL]);

    raw.handle = async (stream, _call, messages) => {
      const all: Buffer[] = [];
      for await (const m of messages) all.push(m);
      reply(stream, [Buffer.concat(all)]);
    };
    const parts = [NON_CANONICAL, Buffer.from([0x10, 0x01]), Buffer.alloc(0)];
    const single = await new Promise<Buffer>((resolve, reject) => {
      const call = client.makeClientStreamRequest(`${TEST}/StreamingInputCall`, id, id, new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (e, r) => (e === null ? resolve(r as Buffer) : reject(e)));
      for (const p of parts) call.write(p);
      call.end();
    });
    expect(raw.calls[1]?.messages).toEqual(parts);
    expect(single).toEqual(Buffer.concat(parts));

    raw.handle = async (stream, _call, messages) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      for await (const m of messages) stream.write(frame(m));
      stream.end();
    };
    const bidi = client.makeBidiStreamRequest(`${TEST}/FullDuplexCall`, id, id, new grpc.Metadata(), { deadline: Date.now() + 10_000 });
    const echoed = collect(bidi);
    for (const p of parts) bidi.write(p);
    bidi.end();
    expect((await echoed).value).toEqual(parts);
    expect(raw.calls[2]?.messages).toEqual(parts);
  });

  it('metadata both ways: custom and -bin request metadata on, response headers and trailers back; hop-by-hop stays', async () => {
    raw.handle = async (stream, call, messages) => {
      for await (const _ of messages) void _;
      reply(stream, [Buffer.alloc(0)], { 'x-seen-text': String(call.headers['x-custom']), 'x-echo-bin': String(call.headers['x-blob-bin']) }, { 'x-trailer-bin': Buffer.from([1, 2, 255]).toString('base64'), 'x-trailer': 'done' });
    };
    const md = new grpc.Metadata();
    md.set('x-custom', 'hello');
    md.set('x-blob-bin', Buffer.from([0, 1, 2, 254]));
    md.set('authorization', 'Bearer t');
    const { headers, status } = await unary(client, `${TEST}/UnaryCall`, NON_CANONICAL, md);
    const seen = raw.calls[0]?.headers ?? {};
    expect(seen['x-custom']).toBe('hello');
    expect(Buffer.from(String(seen['x-blob-bin']), 'base64')).toEqual(Buffer.from([0, 1, 2, 254]));
    expect(seen.authorization).toBe('Bearer t');
    expect(typeof seen['x-trace-id']).toBe('string');
    expect(seen['grpc-accept-encoding']).toBeUndefined();
    expect(seen['user-agent']).toBeUndefined();
    expect(headers.get('x-seen-text')).toEqual(['hello']);
    expect(headers.get('x-echo-bin')).toEqual([Buffer.from([0, 1, 2, 254])]);
    expect(status.metadata.get('x-trailer-bin')).toEqual([Buffer.from([1, 2, 255])]);
    expect(status.metadata.get('x-trailer')).toEqual(['done']);
  });

  it('on the grpc-js client path too (channel options set): response headers and success trailers come back', async () => {
    const viaGrpcJs = new ProtocolGateway({ enableUDP: false });
    viaGrpcJs.configureServiceDiscovery({
      provider: 'static',
      services: { TestService: { descriptor: TestServiceDescriptor, instances: [{ host: HOST, port: raw.port }] } },
      forwarding: { channelOptions: { 'grpc.keepalive_time_ms': 60_000 } },
    });
    const { port } = await viaGrpcJs.listen(0, HOST);
    const c = new grpc.Client(`${HOST}:${port as number}`, grpc.credentials.createInsecure());
    try {
      raw.handle = async (stream, _call, messages) => {
        for await (const _ of messages) void _;
        reply(stream, [NON_CANONICAL], { 'x-head': 'h' }, { 'x-trailer': 'done', 'x-trailer-bin': Buffer.from([9, 255]).toString('base64') });
      };
      const { value, headers, status } = await unary(c, `${TEST}/UnaryCall`, NON_CANONICAL);
      expect(value).toEqual(NON_CANONICAL);
      expect(headers.get('x-head')).toEqual(['h']);
      expect(status.metadata.get('x-trailer')).toEqual(['done']);
      expect(status.metadata.get('x-trailer-bin')).toEqual([Buffer.from([9, 255])]);
    } finally {
      c.close();
      await viaGrpcJs.close();
    }
  });

  it('errors: code, message, grpc-status-details-bin and custom trailers come back unchanged', async () => {
    const details = Buffer.from([0x08, 0x03, 0x12, 0x03, 0x62, 0x61, 0x64, 0xff]);
    raw.handle = async (stream, _call, messages) => {
      for await (const _ of messages) void _;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '3', 'grpc-message': encodeURIComponent('bad thing ☺'), 'grpc-status-details-bin': details.toString('base64'), 'x-why': 'because' }, { endStream: true });
    };
    const error = await unary(client, `${TEST}/UnaryCall`, NON_CANONICAL).catch((e: grpc.ServiceError) => e);
    expect(error).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: 'bad thing ☺' });
    const md = (error as grpc.ServiceError).metadata;
    expect(md.get('grpc-status-details-bin')).toEqual([details]);
    expect(md.get('x-why')).toEqual(['because']);

    // The same on a server stream, after a message.
    raw.handle = async (stream, _call, messages) => {
      for await (const _ of messages) void _;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '9', 'grpc-message': 'stop', 'grpc-status-details-bin': details.toString('base64') }));
      stream.end(frame(NON_CANONICAL));
    };
    const streamed = client.makeServerStreamRequest(`${TEST}/StreamingOutputCall`, id, id, NON_CANONICAL, new grpc.Metadata(), { deadline: Date.now() + 10_000 });
    const got: Buffer[] = [];
    streamed.on('data', (m: Buffer) => got.push(m));
    const failed = await new Promise<grpc.ServiceError>((resolve) => streamed.on('error', resolve));
    expect(got).toEqual([NON_CANONICAL]);
    expect(failed).toMatchObject({ code: grpc.status.FAILED_PRECONDITION, details: 'stop' });
    expect(failed.metadata.get('grpc-status-details-bin')).toEqual([details]);
  });

  it('passes the deadline on as grpc-timeout, less the time already spent', async () => {
    raw.handle = async (stream, _call, messages) => {
      for await (const _ of messages) void _;
      reply(stream, [Buffer.alloc(0)]);
    };
    await unary(client, `${TEST}/UnaryCall`, NON_CANONICAL, new grpc.Metadata(), { deadline: Date.now() + 3000 });
    const timeout = String(raw.calls[0]?.headers['grpc-timeout']);
    expect(timeout).toMatch(/^\d+m$/);
    const ms = Number(timeout.slice(0, -1));
    expect(ms).toBeGreaterThan(0);
    expect(ms).toBeLessThanOrEqual(3000);

    // Streams carry the caller's deadline too, and a silent instance ends in DEADLINE_EXCEEDED, not a hang.
    raw.handle = () => undefined;
    const silent = client.makeServerStreamRequest(`${TEST}/StreamingOutputCall`, id, id, NON_CANONICAL, new grpc.Metadata(), { deadline: Date.now() + 800 });
    silent.on('data', () => undefined);
    const error = await new Promise<grpc.ServiceError>((resolve) => silent.on('error', resolve));
    expect(error.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(String(raw.calls[1]?.headers['grpc-timeout'])).toMatch(/^\d+m$/);
  });

  it('a client that cancels cancels the forwarded call (RST_STREAM CANCEL at the instance)', async () => {
    raw.handle = async (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
      stream.write(frame(NON_CANONICAL));
    };
    const call = client.makeServerStreamRequest(`${TEST}/StreamingOutputCall`, id, id, NON_CANONICAL, new grpc.Metadata(), { deadline: Date.now() + 10_000 });
    call.on('error', () => undefined);
    await new Promise((resolve) => call.once('data', resolve));
    call.cancel();
    await until(() => raw.calls[0]?.closedWith !== undefined, 5000);
    expect(raw.calls[0]?.closedWith).toBe(8);

    // Unary too.
    raw.handle = () => undefined;
    const pending = client.makeUnaryRequest(`${TEST}/UnaryCall`, id, id, NON_CANONICAL, new grpc.Metadata(), { deadline: Date.now() + 10_000 }, () => undefined);
    await until(() => raw.calls.length === 2, 5000);
    pending.cancel();
    await until(() => raw.calls[1]?.closedWith !== undefined, 5000);
    expect(raw.calls[1]?.closedWith).toBe(8);
  });

  it('oversized messages: a reply over 4 MiB is RESOURCE_EXHAUSTED, a request over the limit never reaches the instance', async () => {
    raw.handle = async (stream, _call, messages) => {
      for await (const _ of messages) void _;
      reply(stream, [Buffer.alloc(5 * 1024 * 1024)]);
    };
    const big = await unary(client, `${TEST}/UnaryCall`, NON_CANONICAL).catch((e: grpc.ServiceError) => e);
    expect((big as grpc.ServiceError).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    const streamed = client.makeServerStreamRequest(`${TEST}/StreamingOutputCall`, id, id, NON_CANONICAL, new grpc.Metadata(), { deadline: Date.now() + 10_000 });
    streamed.on('data', () => undefined);
    expect((await new Promise<grpc.ServiceError>((resolve) => streamed.on('error', resolve))).code).toBe(grpc.status.RESOURCE_EXHAUSTED);

    const before = raw.calls.length;
    const tooBig = await unary(client, `${TEST}/UnaryCall`, Buffer.alloc(5 * 1024 * 1024)).catch((e: grpc.ServiceError) => e);
    expect((tooBig as grpc.ServiceError).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(raw.calls.length).toBe(before);
  });

  it('an instance that dies mid-stream: the client gets what was sent, then UNAVAILABLE; the gateway keeps serving', async () => {
    raw.handle = async (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
      stream.write(frame(NON_CANONICAL), () => setTimeout(() => stream.session?.destroy(), 20));
    };
    const call = client.makeServerStreamRequest(`${TEST}/StreamingOutputCall`, id, id, NON_CANONICAL, new grpc.Metadata(), { deadline: Date.now() + 10_000 });
    const got: Buffer[] = [];
    call.on('data', (m: Buffer) => got.push(m));
    const error = await new Promise<grpc.ServiceError>((resolve) => call.on('error', resolve));
    expect(got).toEqual([NON_CANONICAL]);
    expect(error.code).toBe(grpc.status.UNAVAILABLE);

    raw.handle = echoAll;
    expect((await unary(client, `${TEST}/UnaryCall`, NON_CANONICAL)).value).toEqual(NON_CANONICAL);
  });

  it('bytes the instance cannot decode are passed on for it to refuse (no decoding at the gateway)', async () => {
    const garbage = Buffer.from([0xff, 0xff, 0xff]);
    raw.handle = async (stream, _call, messages) => {
      for await (const _ of messages) void _;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '3', 'grpc-message': 'malformed' }, { endStream: true });
    };
    const error = await unary(client, `${TEST}/UnaryCall`, garbage).catch((e: grpc.ServiceError) => e);
    expect(error).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: 'malformed' });
    expect(raw.calls[0]?.messages).toEqual([garbage]);
  });

  it('a request with buf.validate rules is decoded and checked at the gateway by default: bad bytes never reach the instance', async () => {
    const { value } = await unary(client, '/user.UserService/GetUser', USER_NON_CANONICAL);
    // Decoded and re-encoded: the repeated field collapsed, nothing unknown kept.
    expect(raw.calls[0]?.messages).toEqual([Buffer.from([0x0a, 0x01, 0x62])]);
    expect(value).toEqual(Buffer.from([0x0a, 0x01, 0x62]));
    const error = await unary(client, '/user.UserService/GetUser', Buffer.from([0xff, 0xff])).catch((e: grpc.ServiceError) => e);
    expect((error as grpc.ServiceError).code).toBe(grpc.status.INVALID_ARGUMENT);
    const empty = await unary(client, '/user.UserService/GetUser', Buffer.alloc(0)).catch((e: grpc.ServiceError) => e);
    expect((empty as grpc.ServiceError).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(raw.calls.length).toBe(1);
  });
});

describe('when the gateway needs the decoded message, or leaves validation to the instance', () => {
  let raw: RawInstance;
  const gateways: ProtocolGateway[] = [];
  const gatewayPorts: number[] = [];
  const clients: grpc.Client[] = [];

  async function gatewayWith(setup: (g: ProtocolGateway) => void, validation?: 'instance'): Promise<grpc.Client> {
    const g = new ProtocolGateway({ enableUDP: false });
    g.configureServiceDiscovery({
      provider: 'static',
      services: {
        TestService: { descriptor: TestServiceDescriptor, instances: [{ host: HOST, port: raw.port }] },
        UserService: { descriptor: UserServiceDescriptor, instances: [{ host: HOST, port: raw.port }], ...(validation === undefined ? {} : { validation }) },
      },
    });
    setup(g);
    gateways.push(g);
    const { port } = await g.listen(0, HOST);
    gatewayPorts.push(port as number);
    const c = new grpc.Client(`${HOST}:${port as number}`, grpc.credentials.createInsecure());
    clients.push(c);
    return c;
  }

  beforeAll(async () => {
    raw = await startRawInstance();
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    for (const g of gateways) await g.close();
    await raw?.close();
  });

  beforeEach(() => {
    raw.calls.length = 0;
  });

  it('an interceptor sees the decoded request: the call is decoded and re-encoded', async () => {
    const seen: unknown[] = [];
    const client = await gatewayWith((g) => g.use(async (call, next) => {
      seen.push(call.request);
      return next();
    }));
    await unary(client, `${TEST}/UnaryCall`, NON_CANONICAL);
    expect(seen[0]).toMatchObject({ responseSize: 7 });
    expect(raw.calls[0]?.messages).toEqual([Buffer.from([0x10, 0x07])]);
  });

  it('monitoring never reads the message: with it configured, bytes still pass through and the call is counted', async () => {
    const client = await gatewayWith((g) => g.configureMonitoring({ metrics: { enabled: true } }));
    const { value } = await unary(client, `${TEST}/UnaryCall`, NON_CANONICAL);
    expect(raw.calls[0]?.messages).toEqual([NON_CANONICAL]);
    expect(value).toEqual(NON_CANONICAL);
    const port = gatewayPorts[gatewayPorts.length - 1] as number;
    const metrics = await (await fetch(`http://${HOST}:${port}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    expect(metrics).toMatch(/protocol="grpc"/);
  });

  it("validation: 'instance' passes bytes of ruled messages through, for gRPC callers", async () => {
    const client = await gatewayWith(() => undefined, 'instance');
    const { value } = await unary(client, '/user.UserService/GetUser', USER_NON_CANONICAL);
    expect(raw.calls[0]?.messages).toEqual([USER_NON_CANONICAL]);
    expect(value).toEqual(USER_NON_CANONICAL);
  });
});
