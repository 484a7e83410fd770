/**
 * Small loopback clients for every gateway protocol, used by the gateway
 * tests. Every wait is bounded by a timeout.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import WebSocket from 'ws';
import { encodeFrame, FrameType } from 'fw';

export const HOST = '127.0.0.1';

export interface FrameReply {
  type: number;
  payload: Record<string, unknown>;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms);
    }),
  ]);
}

/** Parses frames out of a byte buffer. */
export function parseFrames(buffer: Buffer): { frames: FrameReply[]; rest: Buffer } {
  const frames: FrameReply[] = [];
  let offset = 0;
  while (buffer.length - offset >= 6) {
    const length = buffer.readUInt32BE(offset + 2);
    if (buffer.length - offset < 6 + length) break;
    frames.push({ type: buffer[offset + 1] as number, payload: JSON.parse(buffer.subarray(offset + 6, offset + 6 + length).toString('utf8')) as Record<string, unknown> });
    offset += 6 + length;
  }
  return { frames, rest: buffer.subarray(offset) };
}

/** A TCP frame-protocol client. */
export class TcpFrameClient {
  readonly socket: net.Socket;
  #buffer: Buffer = Buffer.alloc(0);
  readonly frames: FrameReply[] = [];
  #waiters: (() => void)[] = [];
  closed = false;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      const { frames, rest } = parseFrames(this.#buffer);
      this.#buffer = rest;
      this.frames.push(...frames);
      for (const w of this.#waiters.splice(0)) w();
    });
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.#waiters.splice(0)) w();
    });
    socket.on('error', () => undefined);
  }

  static connect(port: number): Promise<TcpFrameClient> {
    return withTimeout(
      new Promise((resolve, reject) => {
        const socket = net.connect(port, HOST, () => resolve(new TcpFrameClient(socket)));
        socket.once('error', reject);
      }),
      5000,
      'tcp connect',
    );
  }

  send(type: number, payload: unknown): void {
    this.socket.write(encodeFrame(type, payload));
  }

  raw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Waits until `predicate` holds over received frames (or the socket closes). */
  async until(predicate: (frames: FrameReply[]) => boolean, ms = 5000): Promise<FrameReply[]> {
    const deadline = Date.now() + ms;
    while (!predicate(this.frames)) {
      if (this.closed) return this.frames;
      if (Date.now() > deadline) throw new Error(`timed out waiting for frames; have ${JSON.stringify(this.frames)}`);
      await withTimeout(new Promise<void>((r) => this.#waiters.push(r)), Math.max(1, deadline - Date.now()), 'frames').catch(() => undefined);
    }
    return this.frames;
  }

  /** Sends a request and waits for its final frame (response, error or stream end). */
  async call(id: string, service: string, method: string, data: unknown, extra: Record<string, unknown> = {}): Promise<FrameReply[]> {
    this.send(FrameType.Request, { id, service, method, data, ...extra });
    const frames = await this.until((fs) => fs.some((f) => f.payload.id === id && (f.type === 2 || f.type === 3 || f.type === 5)));
    return frames.filter((f) => f.payload.id === id);
  }

  waitClosed(ms = 5000): Promise<void> {
    if (this.closed) return Promise.resolve();
    return withTimeout(new Promise((r) => this.socket.once('close', () => r())), ms, 'tcp close');
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Sends one datagram and waits for one reply. */
export async function udpCall(port: number, datagram: Buffer, ms = 3000): Promise<FrameReply> {
  const socket = dgram.createSocket('udp4');
  try {
    const reply = new Promise<Buffer>((resolve) => socket.once('message', (msg) => resolve(msg)));
    socket.send(datagram, port, HOST);
    const msg = await withTimeout(reply, ms, 'udp reply');
    const { frames } = parseFrames(msg);
    if (frames[0] === undefined) throw new Error(`unparseable UDP reply ${msg.toString('hex')}`);
    return frames[0];
  } finally {
    socket.close();
  }
}

/** Raw UDP reply bytes. */
export async function udpRaw(port: number, datagram: Buffer, ms = 3000): Promise<Buffer> {
  const socket = dgram.createSocket('udp4');
  try {
    const reply = new Promise<Buffer>((resolve) => socket.once('message', (msg) => resolve(msg)));
    socket.send(datagram, port, HOST);
    return await withTimeout(reply, ms, 'udp reply');
  } finally {
    socket.close();
  }
}

/** A WebSocket client collecting decoded messages. */
export class WsClient {
  readonly ws: WebSocket;
  readonly messages: unknown[] = [];
  closeCode: number | undefined;
  #waiters: (() => void)[] = [];

  private constructor(ws: WebSocket, decode: (data: Buffer, isBinary: boolean) => unknown) {
    this.ws = ws;
    ws.on('message', (data, isBinary) => {
      this.messages.push(decode(Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer), isBinary));
      for (const w of this.#waiters.splice(0)) w();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      for (const w of this.#waiters.splice(0)) w();
    });
    ws.on('error', () => undefined);
  }

  static connect(url: string, options: { protocol?: string; decode?: (data: Buffer, isBinary: boolean) => unknown; headers?: Record<string, string> } = {}): Promise<WsClient> {
    const ws = new WebSocket(url, options.protocol === undefined ? [] : [options.protocol], { headers: options.headers });
    const client = new WsClient(ws, options.decode ?? ((d) => JSON.parse(d.toString('utf8')) as unknown));
    return withTimeout(
      new Promise((resolve, reject) => {
        ws.once('open', () => resolve(client));
        ws.once('error', reject);
      }),
      5000,
      'ws open',
    );
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' || Buffer.isBuffer(message) || message instanceof Uint8Array ? message : JSON.stringify(message));
  }

  async until(predicate: (messages: unknown[]) => boolean, ms = 5000): Promise<unknown[]> {
    const deadline = Date.now() + ms;
    while (!predicate(this.messages)) {
      if (this.closeCode !== undefined) return this.messages;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ws messages; have ${JSON.stringify(this.messages)}`);
      await withTimeout(new Promise<void>((r) => this.#waiters.push(r)), Math.max(1, deadline - Date.now()), 'ws').catch(() => undefined);
    }
    return this.messages;
  }

  /** Sends `{id, service, method, data}` and waits for its final reply. */
  async call(id: string, service: string, method: string, data: unknown, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>[]> {
    this.send({ id, service, method, data, ...extra });
    const done = (m: unknown): boolean => {
      const r = m as Record<string, unknown>;
      return r.id === id && (r.type === 'response' || r.type === 'error' || r.type === 'stream_end');
    };
    const all = await this.until((ms) => ms.some(done));
    return (all as Record<string, unknown>[]).filter((m) => m.id === id);
  }

  waitClosed(ms = 5000): Promise<number | undefined> {
    if (this.closeCode !== undefined) return Promise.resolve(this.closeCode);
    return withTimeout(new Promise((r) => this.ws.once('close', (code) => r(code))), ms, 'ws close');
  }

  close(): void {
    this.ws.terminate();
  }
}

/** A gRPC client for inline gateway services (JSON codec, `/<Service>/<method>` paths). */
export function grpcJsonClient(port: number, service: string, methods: Record<string, 'none' | 'server' | 'client' | 'bidirectional'>): grpc.Client & Record<string, (...args: unknown[]) => unknown> {
  const definition: grpc.ServiceDefinition = {};
  const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
  const parse = (b: Buffer): unknown => JSON.parse(b.toString('utf8'));
  for (const [name, mode] of Object.entries(methods)) {
    (definition as Record<string, grpc.MethodDefinition<unknown, unknown>>)[name] = {
      path: `/${service}/${name}`,
      requestStream: mode === 'client' || mode === 'bidirectional',
      responseStream: mode === 'server' || mode === 'bidirectional',
      requestSerialize: json,
      requestDeserialize: parse,
      responseSerialize: json,
      responseDeserialize: parse,
    };
  }
  const Ctor = grpc.makeGenericClientConstructor(definition, service);
  return new Ctor(`${HOST}:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<string, (...args: unknown[]) => unknown>;
}

/** Promisified unary gRPC call. */
export function grpcUnary(client: grpc.Client & Record<string, (...args: unknown[]) => unknown>, method: string, request: unknown, metadata = new grpc.Metadata()): Promise<{ value: unknown; headers: grpc.Metadata }> {
  return withTimeout(
    new Promise((resolve, reject) => {
      let headers = new grpc.Metadata();
      const call = client[method]?.(request, metadata, { deadline: Date.now() + 5000 }, (err: grpc.ServiceError | null, value: unknown) => {
        if (err !== null) reject(err);
        else resolve({ value, headers });
      }) as grpc.ClientUnaryCall;
      call.on('metadata', (md) => {
        headers = md;
      });
    }),
    6000,
    `grpc ${method}`,
  );
}

/** Service names a gateway's gRPC reflection lists, read with a grpc-js client of grpc.reflection `version`. */
export async function reflectedServices(port: number, version: 'v1' | 'v1alpha' = 'v1alpha'): Promise<string[]> {
  const reflectionProto = loadSync(require.resolve(`@grpc/reflection/build/proto/grpc/reflection/${version}/reflection.proto`));
  const rpkg = grpc.loadPackageDefinition(reflectionProto) as unknown as { grpc: { reflection: Record<string, { ServerReflection: grpc.ServiceClientConstructor }> } };
  const rclient = new rpkg.grpc.reflection[version]!.ServerReflection(`${HOST}:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<string, (...a: unknown[]) => unknown>;
  try {
    const rcall = rclient.ServerReflectionInfo?.() as grpc.ClientDuplexStream<unknown, { listServicesResponse?: { service: { name: string }[] } }>;
    rcall.write({ listServices: '' });
    rcall.end();
    const names: string[] = [];
    await withTimeout((async () => {
      for await (const r of rcall) names.push(...(r.listServicesResponse?.service ?? []).map((s: { name: string }) => s.name));
    })(), 5000, 'reflection');
    return names;
  } finally {
    rclient.close();
  }
}

export { withTimeout };
