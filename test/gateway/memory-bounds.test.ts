/**
 * Memory bounds under hostile input, on a gateway in a child process (its RSS
 * measured alone; docs/security.md "Memory per request"). Each attack runs 20
 * times at once; it must be refused or answered, the server's RSS may grow by
 * less than RSS_BOUND, and a well-behaved client on another address
 * (127.0.0.2) is served while it runs:
 * - MessagePack headers declaring 2^25 entries (100 bytes) and 1 MiB of
 *   nested fixarrays, over WebSocket `fw.msgpack`;
 * - gRPC-Web text whose body is one base64 quad per byte (`AA==`);
 * - bodies in one-byte pieces: HTTP/1.1 JSON and Connect (one-byte chunks of
 *   chunked encoding), gRPC over HTTP/2 (one-byte DATA frames), TCP frames
 *   (one-byte writes);
 * - a connection flood from one address past `maxConnectionsPerAddress`.
 * Before these bounds, one such request cost 400-500 MB and the msgpack
 * message took the process past its heap limit.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import WebSocket from 'ws';
import { waitForExit } from '../support/child-exit';
import { oneByteDataFrames } from './support/raw-h2';

const HOST = '127.0.0.1';
/** The second client's own address: the per-address cap never counts it with the attackers. */
const OTHER_CLIENT = '127.0.0.2';
// Far under what each attack cost before (150 MB to several GB for twenty), with room for a loaded machine's GC timing.
const RSS_BOUND = 96 * 1024 * 1024;
const AT_ONCE = 20;
const PER_ADDRESS = 60;

jest.setTimeout(120_000);

let child: ChildProcess;
let port: number;

function ask<T>(message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m: T) => resolve(m));
    child.send(message);
  });
}

beforeAll(async () => {
  child = fork(path.join(__dirname, 'fixtures', 'bounds-server.js'), [JSON.stringify({ maxConnectionsPerAddress: PER_ADDRESS })], {
    // A small young generation: its size is V8's constant (larger on Node 24), not what an attack holds, so RSS then shows what is retained.
    execArgv: ['--expose-gc', '--max-semi-space-size=1'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  port = await new Promise<number>((resolve, reject) => {
    // Generous: the child transpiles the runtime on load, slow while the whole suite runs on two cores.
    const timer = setTimeout(() => reject(new Error('bounds server did not start')), 90_000);
    child.once('message', (m: { port: number }) => {
      clearTimeout(timer);
      resolve(m.port);
    });
    child.once('exit', (code) => reject(new Error(`bounds server exited with ${String(code)}`)));
  });
}, 120_000);

afterAll(async () => {
  if (child === undefined) return;
  child.disconnect();
  if (!(await waitForExit(child, 5000))) child.kill('SIGKILL');
});

/** An HTTP/JSON echo from 127.0.0.2 on a connection of its own; resolves the status. */
function wellBehavedCall(): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ hello: 'world' });
    const req = http.request({ host: HOST, port, localAddress: OTHER_CLIENT, path: '/api/Echo/echo', method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, timeout: 60_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('well-behaved call timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Runs `attack` AT_ONCE times at once while a well-behaved client calls
 * (it must be answered 200); returns the attacks' results and the RSS growth.
 */
async function underAttack<T>(attack: (i: number) => Promise<T>): Promise<{ results: T[]; growth: number }> {
  await ask('reset');
  const attacks = Promise.all(Array.from({ length: AT_ONCE }, (_, i) => attack(i)));
  const served = await wellBehavedCall();
  const results = await attacks;
  expect(served).toBe(200);
  // And after it, too.
  expect(await wellBehavedCall()).toBe(200);
  const { baseline, peak } = await ask<{ baseline: number; peak: number }>('peak');
  if (process.env.FW_PRINT_RSS === '1') console.log(`growth ${((peak - baseline) / 1048576).toFixed(1)} MB`);
  return { results, growth: peak - baseline };
}

/** Writes `bytes` on a raw TCP connection and resolves everything the server sent until it closed (or the timeout). */
function rawExchange(bytes: Buffer | Buffer[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, HOST);
    const received: Buffer[] = [];
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(received).toString('latin1'));
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', done);
    socket.on('close', done);
    for (const piece of Array.isArray(bytes) ? bytes : [bytes]) socket.write(piece);
  });
}

/** An HTTP/1.1 request whose body goes as one-byte chunks of chunked transfer encoding. */
function oneByteChunked(target: string, headers: Record<string, string>, body: Buffer): Buffer {
  const head = `POST ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  const chunks = Buffer.alloc(body.length * 6 + 5);
  let at = 0;
  for (const byte of body) {
    at += chunks.write('1\r\n', at, 'latin1');
    chunks[at++] = byte;
    at += chunks.write('\r\n', at, 'latin1');
  }
  at += chunks.write('0\r\n\r\n', at, 'latin1');
  return Buffer.concat([Buffer.from(head, 'latin1'), chunks.subarray(0, at)]);
}

const statusOf = (reply: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0);

/** A JSON body of about `size` bytes. */
function jsonBody(size: number): Buffer {
  return Buffer.from(JSON.stringify({ pad: 'a'.repeat(size) }));
}

/** The first reply a msgpack WebSocket connection gets for `message`: 'error:<code>', or 'closed'. */
function msgpackExchange(message: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${HOST}:${port}/ws`, 'fw.msgpack');
    const timer = setTimeout(() => {
      ws.terminate();
      resolve('timeout');
    }, 30_000);
    const done = (outcome: string): void => {
      clearTimeout(timer);
      ws.terminate();
      resolve(outcome);
    };
    ws.on('open', () => ws.send(message));
    ws.on('message', (data: Buffer) => {
      // Replies are msgpack envelopes; the code is a plain string inside them.
      const code = /(INVALID_ARGUMENT|MALFORMED_MESSAGE|BAD_REQUEST)/.exec(data.toString('latin1'))?.[1];
      done(`error:${code ?? 'other'}`);
    });
    ws.on('error', () => done('closed'));
    ws.on('close', () => done('closed'));
  });
}

describe('WebSocket MessagePack', () => {
  it('refuses 100 bytes of nested 2^25-entry array headers before allocating, with memory bounded', async () => {
    const bomb = Buffer.alloc(100);
    for (let i = 0; i < 20; i++) {
      bomb[i * 5] = 0xdd;
      bomb.writeUInt32BE(2 ** 25, i * 5 + 1);
    }
    const { results, growth } = await underAttack(() => msgpackExchange(bomb));
    expect(results.every((r) => r === 'error:MALFORMED_MESSAGE')).toBe(true);
    expect(growth).toBeLessThan(RSS_BOUND);
  });

  it('refuses 1 MiB of nested fixarrays as too deep, with memory bounded', async () => {
    const nest = Buffer.alloc(1 << 20, 0x91);
    nest[nest.length - 1] = 0xc0;
    const { results, growth } = await underAttack(() => msgpackExchange(nest.subarray(0, (1 << 20) - 1024)));
    // Frames over maxPayload (1 MiB) would close the connection; this one is under it and is refused as too deep.
    expect(results.every((r) => r === 'error:INVALID_ARGUMENT')).toBe(true);
    expect(growth).toBeLessThan(RSS_BOUND);
  });
});

describe('bodies arriving in the smallest pieces', () => {

  it('gRPC-Web text: one base64 quad per byte costs no more than the bytes', async () => {
    // 64 KiB, as 256 KiB of quads: about 8 MB a request when each quad was its own Buffer, 150 MB for twenty.
    const message = jsonBody(64 * 1024);
    const envelope = Buffer.alloc(5 + message.length);
    envelope.writeUInt32BE(message.length, 1);
    message.copy(envelope, 5);
    const quads = Buffer.from(Array.from(envelope, (byte) => Buffer.from([byte]).toString('base64')).join(''), 'latin1');
    const request = Buffer.concat([
      Buffer.from(`POST /Echo/echo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/grpc-web-text+json\r\nX-Grpc-Web: 1\r\nContent-Length: ${quads.length}\r\n\r\n`, 'latin1'),
      quads,
    ]);
    const { results, growth } = await underAttack(() => rawExchange(request));
    for (const reply of results) {
      expect(statusOf(reply)).toBe(200);
      // The echo came back: its trailers say OK.
      const body = reply.slice(reply.indexOf('\r\n\r\n') + 4);
      expect(body.length).toBeGreaterThan(64 * 1024);
    }
    expect(growth).toBeLessThan(RSS_BOUND);
  });

  // 64 KiB in one-byte chunks is 64 Ki 'data' events a request: enough to have cost 25 MB each before, and quick to parse.
  const chunkedSize = 64 * 1024;

  it('HTTP/1.1 JSON in one-byte chunks: answered, memory bounded', async () => {
    const request = oneByteChunked('/api/Echo/echo', { 'Content-Type': 'application/json' }, jsonBody(chunkedSize));
    const { results, growth } = await underAttack(() => rawExchange(request));
    expect(results.map(statusOf)).toEqual(Array(AT_ONCE).fill(200));
    expect(growth).toBeLessThan(RSS_BOUND);
  });

  it('Connect unary JSON in one-byte chunks: answered, memory bounded', async () => {
    const request = oneByteChunked('/Echo/echo', { 'Content-Type': 'application/json', 'Connect-Protocol-Version': '1' }, jsonBody(chunkedSize));
    const { results, growth } = await underAttack(() => rawExchange(request));
    expect(results.map(statusOf)).toEqual(Array(AT_ONCE).fill(200));
    expect(growth).toBeLessThan(RSS_BOUND);
  });

  it('gRPC over HTTP/2 in one-byte DATA frames: answered, memory bounded', async () => {
    const message = jsonBody(60_000);
    const body = Buffer.alloc(5 + message.length);
    body.writeUInt32BE(message.length, 1);
    message.copy(body, 5);
    const { results, growth } = await underAttack(() => oneByteDataFrames(port, '/Echo/echo', 'application/grpc+json', body, 60_000));
    for (const outcome of results) {
      expect(outcome.ended).toBe(true);
      // The echo: one message as long as the request's.
      expect(outcome.dataBytes).toBe(body.length);
    }
    expect(growth).toBeLessThan(RSS_BOUND);
  });

  it('TCP frames in one-byte writes: answered, memory bounded', async () => {
    const payload = Buffer.from(JSON.stringify({ id: 1, service: 'Echo', method: 'echo', data: { pad: 'a'.repeat(64 * 1024) } }));
    const frame = Buffer.alloc(6 + payload.length);
    frame[0] = 1;
    frame[1] = 1;
    frame.writeUInt32BE(payload.length, 2);
    payload.copy(frame, 6);
    const pieces = Array.from({ length: frame.length }, (_, i) => frame.subarray(i, i + 1));
    const exchange = (): Promise<string> =>
      new Promise((resolve) => {
        const socket = net.connect({ port, host: HOST, noDelay: true });
        let received = '';
        const timer = setTimeout(() => socket.destroy(), 60_000);
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          // A response frame (type 2) as long as the request's data: the echo is complete.
          if (received.length >= payload.length) socket.end();
        });
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(received);
        });
        socket.on('error', () => undefined);
        for (const piece of pieces) socket.write(piece);
      });
    const { results, growth } = await underAttack(exchange);
    for (const reply of results) {
      expect(reply.charCodeAt(1)).toBe(2);
      expect(reply).toContain('"pad"');
    }
    expect(growth).toBeLessThan(RSS_BOUND);
  });
});

describe('connection floods', () => {
  it(`closes connections from one address past maxConnectionsPerAddress (${PER_ADDRESS}); other addresses are served`, async () => {
    const sockets: net.Socket[] = [];
    let closedEarly = 0;
    try {
      await ask('reset');
      await Promise.all(Array.from({ length: PER_ADDRESS * 3 }, () => new Promise<void>((resolve) => {
        const socket = net.connect(port, HOST);
        sockets.push(socket);
        socket.on('error', () => undefined);
        socket.on('connect', () => {
          // The HTTP/2 preface and nothing more, as the flood that once locked out every client did.
          socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
          resolve();
        });
        socket.on('close', () => {
          closedEarly++;
          resolve();
        });
      })));
      // The refused ones are closed at once; give the server a moment to do so.
      for (let i = 0; i < 100 && closedEarly < PER_ADDRESS * 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(closedEarly).toBe(PER_ADDRESS * 2);
      expect(await wellBehavedCall()).toBe(200);
      const { baseline, peak } = await ask<{ baseline: number; peak: number }>('peak');
      expect(peak - baseline).toBeLessThan(RSS_BOUND);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    // Once they are gone, the address may connect again.
    await new Promise((r) => setTimeout(r, 100));
    const again = await rawExchange(Buffer.from('POST /api/Echo/echo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'), 10_000);
    expect(statusOf(again)).toBe(200);
  });
});
