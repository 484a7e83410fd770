/**
 * The liveness ping (H2UnaryChannel.ping) blames the instance only for its
 * own silence. A gateway whose event loop was blocked past the ping timeout
 * (a long synchronous task, a GC pause, a slow host) finds the ack unread in
 * its socket when the loop resumes; it must read it before judging, or it
 * opens the circuit of a healthy instance. A frozen one (SIGSTOP) still
 * fails the ping. The instance is another process, so blocking this one's
 * loop does not stop it from acking.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { H2UnaryChannel } from '../../../runtime/gateway/discovery/h2-unary-channel';

const SERVER = `
const http2 = require('node:http2');
const server = http2.createServer();
server.listen(0, '127.0.0.1', () => process.stdout.write('PORT ' + server.address().port + '\\n'));
`;

function startPeer(): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.once('exit', (code) => reject(new Error(`peer exited with ${code}`)));
  });
}

function ping(channel: H2UnaryChannel, timeoutMs: number, blockMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    channel.ping(timeoutMs, resolve);
    // Node writes the PING in this loop turn's check phase, before JS immediates. Then this process
    // stays busy past the timeout: the ack arrives meanwhile, unread.
    setImmediate(() => {
      const until = Date.now() + blockMs;
      while (Date.now() < until) {
        // busy on purpose
      }
    });
  });
}

describe('liveness ping while the gateway itself lags', () => {
  let peer: { child: ChildProcess; port: number };
  let channel: H2UnaryChannel;

  beforeAll(async () => {
    peer = await startPeer();
    channel = new H2UnaryChannel(`127.0.0.1:${peer.port}`);
    // The probe connection is open before the test pings (its SETTINGS alone would prove life).
    expect(await ping(channel, 2000, 0)).toBe(true);
  });
  afterAll(() => {
    channel.close();
    peer.child.kill('SIGKILL');
  });

  it('counts an ack that arrived while this process was blocked past the timeout', async () => {
    for (let i = 0; i < 3; i++) expect(await ping(channel, 50, 300)).toBe(true);
  });

  it('still fails the ping of a frozen instance', async () => {
    peer.child.kill('SIGSTOP');
    try {
      expect(await ping(channel, 200, 0)).toBe(false);
      expect(await ping(channel, 50, 300)).toBe(false);
    } finally {
      peer.child.kill('SIGCONT');
    }
    expect(await ping(channel, 2000, 0)).toBe(true);
  });
});
