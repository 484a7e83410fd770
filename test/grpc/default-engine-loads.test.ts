/**
 * server.grpc() on its default engine serves calls (through middleware, and
 * health) without loading @grpc/grpc-js or @grpc/proto-loader: only the
 * client, loadProtoDefinition and the grpc-js engine load them. A raw
 * node:http2 client makes the calls, so the test itself loads neither; a
 * load names the file that asked for it.
 */
import http2 from 'node:http2';

const loaders: string[] = [];

/** The first frame of the stack that is not jest's or this file's: who required the package. */
function requirer(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1).map((l) => l.trim());
  const frame = frames.find((l) => !l.includes('node_modules/jest-') && !l.includes('node_modules/@jest/') && !l.includes('default-engine-loads.test'));
  return (frame ?? 'unknown').replace(/^at .*?\(?(\/[^:)]*).*$/, '$1').replace(/.*\/(runtime|node_modules|generated)\//, '$1/');
}

// @grpc/reflection (which loads grpc-js itself) is stubbed: it is imported with the app until it too loads on first use, and
// jest runs a mock's factory once, so the first requirer of grpc-js must be fw's own code if any of it loads grpc-js.
jest.mock('@grpc/reflection', () => ({ ReflectionService: class {} }));
jest.mock('@grpc/grpc-js', () => {
  loaders.push(requirer());
  return jest.requireActual('@grpc/grpc-js');
});
jest.mock('@grpc/proto-loader', () => {
  loaders.push(requirer());
  return jest.requireActual('@grpc/proto-loader');
});

function frame(message: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

describe('default gRPC engine', () => {
  it('serves a unary call and health without loading grpc-js or proto-loader on the server path', async () => {
    const { server } = await import('../../runtime');
    const app = server.grpc();
    app.use(async (call, next) => next());
    app.addService({ name: 'Loads', methods: { Echo: { handler: async (request: unknown) => request } } });
    const { port } = await app.listen(0, '127.0.0.1');
    const session = http2.connect(`http://127.0.0.1:${port}`);
    const call = (path: string, contentType: string, message: Buffer): Promise<{ status: string | undefined; body: Buffer }> =>
      new Promise((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': contentType, te: 'trailers' });
        const chunks: Buffer[] = [];
        let status: string | undefined;
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('trailers', (t) => (status = String(t['grpc-status'])));
        stream.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
        stream.on('error', reject);
        stream.end(frame(message));
      });
    try {
      const reply = await call('/Loads/Echo', 'application/grpc+json', Buffer.from(JSON.stringify({ hello: 'world' })));
      expect(reply.status).toBe('0');
      expect(JSON.parse(reply.body.subarray(5).toString())).toEqual({ hello: 'world' });
      // HealthCheckRequest {} → HealthCheckResponse { status: SERVING (1) }: field 1, varint 1.
      const health = await call('/grpc.health.v1.Health/Check', 'application/grpc', Buffer.alloc(0));
      expect(health.status).toBe('0');
      expect([...health.body.subarray(5)]).toEqual([0x08, 0x01]);
    } finally {
      session.close();
      await app.close();
    }
    if (process.env.FW_PRINT_LOADERS === '1') console.log(loaders);
    expect(loaders).toEqual([]);
  });

  it("the gateway's gRPC port serves a unary call without loading them either", async () => {
    const { ProtocolGateway } = await import('../../runtime');
    const gateway = new ProtocolGateway({ enableUDP: false, enableTCP: false, enableWebSocket: false });
    gateway.addService('Loads', { echo: async (request: unknown) => request });
    const { port } = await gateway.listen(0, '127.0.0.1');
    const session = http2.connect(`http://127.0.0.1:${port}`);
    try {
      const reply = await new Promise<{ status: string | undefined; body: Buffer }>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': '/Loads/echo', 'content-type': 'application/grpc', te: 'trailers' });
        const chunks: Buffer[] = [];
        let status: string | undefined;
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('trailers', (t) => (status = String(t['grpc-status'])));
        stream.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
        stream.on('error', reject);
        stream.end(frame(Buffer.from(JSON.stringify({ hello: 'gateway' }))));
      });
      expect(reply.status).toBe('0');
      expect(JSON.parse(reply.body.subarray(5).toString())).toEqual({ hello: 'gateway' });
    } finally {
      session.close();
      await gateway.close();
    }
    expect(loaders).toEqual([]);
  });
});
