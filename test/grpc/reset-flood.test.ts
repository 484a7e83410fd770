/**
 * Rapid reset (docs/security.md): a connection that opens streams and resets
 * them at once, faster than `grpc.maxResetsPerSecond`, is sent away with
 * GOAWAY ENHANCE_YOUR_CALM, on `server.grpc()` and on the gateway's one port;
 * a new connection is served as before. The check between header and request
 * timeouts runs every second, whatever the timeouts.
 */
import http2 from 'node:http2';
import { ProtocolGateway, server } from 'fw';
import { timeoutCheckInterval, TIMEOUT_CHECK_SLACK } from '../../runtime/http/server-options';

const HOST = '127.0.0.1';
const headers = { ':method': 'POST', ':path': '/Echo/Echo', 'content-type': 'application/grpc+json', te: 'trailers' };

/** Opens and cancels `count` streams on one connection; resolves the GOAWAY code it got, if any. */
async function resetFlood(port: number, count: number): Promise<number | undefined> {
  const session = http2.connect(`http://${HOST}:${port}`);
  session.on('error', () => undefined);
  let goaway: number | undefined;
  session.on('goaway', (code: number) => {
    goaway = code;
  });
  await new Promise<void>((resolve) => session.once('connect', () => resolve()));
  for (let i = 0; i < count && !session.destroyed && goaway === undefined; i++) {
    const stream = session.request(headers, { endStream: false });
    stream.on('error', () => undefined);
    stream.close(http2.constants.NGHTTP2_CANCEL);
    if (i % 50 === 49) await new Promise((r) => setImmediate(r));
  }
  await new Promise<void>((resolve) => {
    if (session.destroyed) resolve();
    else {
      session.once('close', () => resolve());
      setTimeout(() => {
        session.destroy();
        resolve();
      }, 3000);
    }
  });
  return goaway;
}

/** One well-formed JSON call on a new connection; resolves its grpc-status. */
async function echoStatus(port: number): Promise<string | undefined> {
  const session = http2.connect(`http://${HOST}:${port}`);
  try {
    const message = Buffer.from('{"a":1}');
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    const stream = session.request(headers);
    stream.end(frame);
    stream.resume();
    return await new Promise((resolve, reject) => {
      stream.on('trailers', (t) => resolve(t['grpc-status'] as string | undefined));
      stream.on('error', reject);
    });
  } finally {
    session.close();
  }
}

describe('HTTP/2 stream resets per connection', () => {
  it('server.grpc(): a reset flood past maxResetsPerSecond gets GOAWAY ENHANCE_YOUR_CALM; new connections are served', async () => {
    const app = server.grpc().withOptions({ grpc: { maxResetsPerSecond: 50 } });
    app.addService({ name: 'Echo', methods: { Echo: { handler: async (req: unknown) => req } } });
    const { port } = await app.listen(0, HOST);
    try {
      expect(await resetFlood(port, 1000)).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
      expect(await echoStatus(port)).toBe('0');
    } finally {
      await app.close();
    }
  });

  it('the gateway port: the default cap (200 a second) stops a flood of 5,000', async () => {
    const gateway = new ProtocolGateway({ enableUDP: false });
    gateway.addService('Echo', { Echo: async (req: unknown) => req });
    const { port } = await gateway.listen(0, HOST);
    try {
      expect(await resetFlood(port as number, 5000)).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
      expect(await echoStatus(port as number)).toBe('0');
    } finally {
      await gateway.close();
    }
  });

  it('refuses a cap that is not a whole number', () => {
    expect(() => server.grpc().withOptions({ grpc: { maxResetsPerSecond: -1 } })).toThrow(/maxResetsPerSecond/);
  });
});

describe('timeout checks', () => {
  it('run every second at the defaults, so a slowloris client is closed within headersTimeout + 1 s', () => {
    expect(TIMEOUT_CHECK_SLACK).toBe(1000);
    expect(timeoutCheckInterval(60_000)).toBe(1000);
    expect(timeoutCheckInterval(400)).toBe(200);
    expect(timeoutCheckInterval(Infinity)).toBe(1000);
  });
});
