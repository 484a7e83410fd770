/**
 * Refusals (issue 4 "Bad input"): oversized messages, malformed protobuf and
 * JSON, unknown services/methods, and HTTP/1.1 on the gRPC port. After each,
 * the server keeps serving.
 */
import http from 'node:http';
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcStatus } from 'fw/grpc';
import { loadUserProto, protoUserService } from './fixtures/proto-user-service';
import { frame, rawCall } from './fixtures/raw-http2';
import { listen, newApp, stopAll } from './fixtures/servers';

type Msg = Record<string, unknown>;

describe('bad input to the gRPC server', () => {
  let address: string;
  let echo: { echo(r: Msg): Promise<Msg>; close(): void };

  beforeAll(async () => {
    const app = newApp()
      .withOptions({ grpc: { maxReceiveMessageLength: 64 * 1024 } })
      .addService(protoUserService(loadUserProto()))
      .addService({ name: 'Echo', methods: { Echo: { handler: async (request: Msg) => request } } });
    address = await listen(app);
    echo = createGrpcClient({ address, service: { name: 'Echo', methods: { Echo: 'none' } } }) as typeof echo;
  });
  afterAll(async () => {
    echo.close();
    await stopAll();
  });

  const stillServing = async (): Promise<void> => {
    await expect(echo.echo({ ok: true })).resolves.toEqual({ ok: true });
  };

  it('a message over maxReceiveMessageLength is RESOURCE_EXHAUSTED', async () => {
    await expect(echo.echo({ blob: 'x'.repeat(70 * 1024) })).rejects.toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED });
    await stillServing();
  });

  it('refuses on the length prefix alone, before the body arrives (nothing is buffered whole)', async () => {
    // Announce 100 MiB, send 1 KiB, keep the stream open: the status must come back anyway.
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(100 * 1024 * 1024, 1);
    const result = await rawCall(address, '/Echo/Echo', [prefix, Buffer.alloc(1024, 0x7b)], { end: false });
    expect(result.status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    await stillServing();
  });

  it('malformed protobuf is INVALID_ARGUMENT and the handler is not called', async () => {
    // A varint tag cut short: no protobuf parser accepts it.
    const garbage = Buffer.from([0xff, 0xff]);
    const result = await rawCall(address, '/user.UserService/GetUser', [frame(garbage)]);
    expect(result.status).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(result.message).toMatch(/deserializ/i);
    await stillServing();
  });

  it('malformed JSON to an inline service is INVALID_ARGUMENT, as on the gateway', async () => {
    const result = await rawCall(address, '/Echo/Echo', [frame(Buffer.from('{"unterminated": '))], { headers: { 'content-type': 'application/grpc+json' } });
    expect(result.status).toBe(GrpcStatus.INVALID_ARGUMENT);
    const proto = await rawCall(address, '/Echo/Echo', [frame(Buffer.from('{"__proto__": {"polluted": true}}'))]);
    expect(proto.status).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(({} as Msg).polluted).toBeUndefined();
    await stillServing();
  });

  it('JSON services answer with content-type application/grpc+json, proto ones with application/grpc+proto', async () => {
    const json = await rawCall(address, '/Echo/Echo', [frame(Buffer.from('{"a":1}'))]);
    expect(json.headers['content-type']).toBe('application/grpc+json');
    expect(json.status).toBe(GrpcStatus.OK);
    const proto = await rawCall(address, '/user.UserService/GetUser', [frame(Buffer.alloc(0))]);
    expect(proto.headers['content-type']).toBe('application/grpc+proto');
  });

  it('unknown service or method is UNIMPLEMENTED', async () => {
    expect((await rawCall(address, '/nope.Service/Method', [frame(Buffer.alloc(0))])).status).toBe(GrpcStatus.UNIMPLEMENTED);
    expect((await rawCall(address, '/Echo/Missing', [frame(Buffer.alloc(0))])).status).toBe(GrpcStatus.UNIMPLEMENTED);
    await stillServing();
  });

  it('an HTTP/1.1 request to the gRPC port does not crash the server', async () => {
    const [host, port] = address.split(':') as [string, string];
    const outcome = await new Promise<string>((resolve) => {
      const request = http.request({ host, port: Number(port), method: 'POST', path: '/Echo/Echo', timeout: 3000 }, (response) => {
        response.resume();
        resolve(`status ${String(response.statusCode)}`);
      });
      request.on('error', (error) => resolve(`error ${error.message}`));
      request.on('timeout', () => {
        request.destroy();
        resolve('timeout');
      });
      request.end('{}');
    });
    // The server answers in HTTP/2 (SETTINGS/GOAWAY) and closes: the HTTP/1.1 client cannot parse it.
    expect(outcome).toMatch(/^error /);
    await stillServing();
  });

  it('a client sending a truncated frame then closing gets an error status, not a hang', async () => {
    const partial = frame(Buffer.from('{"a":1}')).subarray(0, 8);
    const result = await rawCall(address, '/Echo/Echo', [partial]);
    expect(result.status).not.toBe(GrpcStatus.OK);
    await stillServing();
  });
});
