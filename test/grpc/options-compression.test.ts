/**
 * Spec 4.8 options: the map onto grpc-js channel options, refusals of bad
 * values, message-size limits, and gzip response compression honouring
 * `level` and `threshold` (observed on the wire with a raw HTTP/2 client).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { createGrpcClient } from 'fw/grpc-client';
import { CHANNEL_OPTION_KEYS, GrpcStatus, type GrpcServerOptions } from 'fw/grpc';
import { toChannelOptions, toCompressionSettings } from '../../runtime/grpc/options';
import { frame, frames, rawCall } from './fixtures/raw-http2';
import { collect, listen, newApp, stopAll } from './fixtures/servers';

type Msg = Record<string, unknown>;

// Text that compresses but is not trivially repetitive, so gzip levels give different bytes.
function payload(bytes: number): string {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
  let out = '';
  let seed = 7;
  for (let i = 0; out.length < bytes && i < bytes; i += 1) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out += `${words[seed % words.length] ?? ''}${seed % 97} `;
  }
  return out.slice(0, bytes);
}

describe('gRPC options map (spec 4.8 → grpc-js)', () => {
  it('maps every spec option to its grpc.* key', () => {
    const options: GrpcServerOptions = {
      maxReceiveMessageLength: 1024,
      maxSendMessageLength: 2048,
      keepaliveTimeMs: 10_000,
      keepaliveTimeoutMs: 5000,
      keepalivePermitWithoutCalls: true,
      http2MaxPingsWithoutData: 0,
      http2MinTimeBetweenPingsMs: 10_000,
      http2MaxPingStrikes: 2,
      maxConnectionIdle: 60_000,
      maxConnectionAge: 3_600_000,
      maxConnectionAgeGrace: 5000,
    };
    expect(toChannelOptions(options)).toEqual({
      'grpc.max_receive_message_length': 1024,
      'grpc.max_send_message_length': 2048,
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5000,
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.http2.max_pings_without_data': 0,
      'grpc.http2.min_ping_interval_without_data_ms': 10_000,
      'grpc.http2.min_time_between_pings_ms': 10_000,
      'grpc.http2.max_ping_strikes': 2,
      'grpc.max_connection_idle_ms': 60_000,
      'grpc.max_connection_age_ms': 3_600_000,
      'grpc.max_connection_age_grace_ms': 5000,
      'grpc.max_concurrent_streams': 100,
      'grpc-node.max_session_memory': 32,
    });
    expect(Object.keys(CHANNEL_OPTION_KEYS)).toHaveLength(11);
  });

  it('defaults message limits to 4 MiB and bounds HTTP/2 (streams, session memory, idle connections)', () => {
    expect(toChannelOptions({})).toEqual({
      'grpc.max_receive_message_length': 4194304,
      'grpc.max_send_message_length': 4194304,
      'grpc.max_concurrent_streams': 100,
      'grpc-node.max_session_memory': 32,
      'grpc.max_connection_idle_ms': 120_000,
    });
  });

  it('refuses bad values with a RangeError naming the option', () => {
    const app = newApp();
    expect(() => app.withOptions({ grpc: { keepaliveTimeMs: -1 } })).toThrow(/grpc.keepaliveTimeMs/);
    expect(() => app.withOptions({ grpc: { maxReceiveMessageLength: 1.5 } })).toThrow(RangeError);
    expect(() => app.withOptions({ grpc: { compression: 'brotli' as 'gzip' } })).toThrow(/compression/);
    expect(() => app.withOptions({ grpc: { compression: 'gzip', compressionOptions: { level: 10 } } })).toThrow(/level/);
    expect(() => app.withOptions({ grpc: { compression: 'gzip', compressionOptions: { threshold: -5 } } })).toThrow(/threshold/);
    expect(toCompressionSettings({ compression: 'gzip' })).toEqual({ level: 6, threshold: 1024 });
    expect(toCompressionSettings({})).toBeUndefined();
  });
});

describe('message size limits and keepalive/connection options on a live server', () => {
  afterAll(stopAll);

  it('serves with every option set, and refuses oversized responses with RESOURCE_EXHAUSTED', async () => {
    const app = newApp()
      .withOptions({
        grpc: {
          maxReceiveMessageLength: 1024 * 1024,
          maxSendMessageLength: 1000,
          keepaliveTimeMs: 30_000,
          keepaliveTimeoutMs: 5000,
          keepalivePermitWithoutCalls: true,
          http2MaxPingsWithoutData: 0,
          http2MinTimeBetweenPingsMs: 10_000,
          http2MaxPingStrikes: 2,
          maxConnectionIdle: 60_000,
          maxConnectionAge: 60_000,
          maxConnectionAgeGrace: 1000,
        },
      })
      .addService({ name: 'Sized', methods: { Make: { handler: async (r: { size?: number }) => ({ data: 'x'.repeat(r.size ?? 0) }) } } });
    const client = createGrpcClient<{ make(r: Msg): Promise<Msg>; close(): void }>({ address: await listen(app), service: { name: 'Sized', methods: { Make: 'none' } } });
    await expect(client.make({ size: 10 })).resolves.toEqual({ data: 'x'.repeat(10) });
    await expect(client.make({ size: 5000 })).rejects.toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED });
    await expect(client.make({ size: 20 })).resolves.toBeDefined();
    client.close();
  });
});

describe('gzip response compression', () => {
  let address: string;
  const acceptGzip = { 'grpc-accept-encoding': 'identity,gzip' };

  beforeAll(async () => {
    const app = newApp()
      .withOptions({ grpc: { compression: 'gzip', compressionOptions: { level: 9, threshold: 1000 } } })
      .addService({
        name: 'Text',
        methods: {
          Echo: { handler: async (r: Msg) => r },
          Series: { streaming: 'server', async *handler(r: { sizes?: number[] }) { for (const size of r.sizes ?? []) yield { text: payload(size) }; } },
        },
      });
    address = await listen(app);
  });
  afterAll(stopAll);

  const request = (value: unknown): Buffer => frame(Buffer.from(JSON.stringify(value)));

  it('compresses a message above the threshold at the configured level, flagging the frame', async () => {
    const text = payload(5000);
    const result = await rawCall(address, '/Text/Echo', [request({ text })], { headers: acceptGzip });
    expect(result.status).toBe(GrpcStatus.OK);
    expect(result.headers['grpc-encoding']).toBe('gzip');
    const [only] = frames(result.body);
    expect(only?.compressed).toBe(true);
    const raw = Buffer.from(JSON.stringify({ text }));
    expect(only?.payload.equals(gzipSync(raw, { level: 9 }))).toBe(true);
    expect(only?.payload.equals(gzipSync(raw, { level: 1 }))).toBe(false);
    expect(JSON.parse(gunzipSync(only?.payload ?? Buffer.alloc(0)).toString())).toEqual({ text });
  });

  it('sends messages at or below the threshold uncompressed, even within one stream', async () => {
    const result = await rawCall(address, '/Text/Series', [request({ sizes: [10, 4000, 20] })], { headers: acceptGzip });
    expect(result.status).toBe(GrpcStatus.OK);
    expect(frames(result.body).map((f) => f.compressed)).toEqual([false, true, false]);
  });

  it('does not compress for a client that does not accept gzip', async () => {
    const result = await rawCall(address, '/Text/Echo', [request({ text: payload(5000) })], { headers: { 'grpc-accept-encoding': 'identity' } });
    // No grpc-encoding, or identity: both mean uncompressed.
    expect(result.headers['grpc-encoding'] ?? 'identity').toBe('identity');
    expect(frames(result.body)[0]?.compressed).toBe(false);
  });

  it('grpc-js clients read compressed responses transparently', async () => {
    const client = createGrpcClient<{ echo(r: Msg): Promise<Msg>; series(r: Msg): AsyncIterable<Msg>; close(): void }>({
      address,
      service: { name: 'Text', methods: { Echo: 'none', Series: 'server' } },
    });
    const text = payload(20_000);
    await expect(client.echo({ text })).resolves.toEqual({ text });
    const series = await collect(client.series({ sizes: [5, 3000] }));
    expect(series.map((m) => String(m.text).length)).toEqual([5, 3000]);
    client.close();
  });

  it('accepts gzip-compressed requests from clients', async () => {
    const client = createGrpcClient<{ echo(r: Msg): Promise<Msg>; close(): void }>({ address, compression: 'gzip', service: { name: 'Text', methods: { Echo: 'none' } } });
    const text = payload(8000);
    await expect(client.echo({ text })).resolves.toEqual({ text });
    client.close();
  });
});
