/**
 * Starts a throwaway `redis-server` on a free loopback port for one suite:
 * no persistence, killed afterwards; every wait is bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';

export interface RedisProcess {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** SIGKILLs the server (an outage), waiting (at most 5 s) for it to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port after kill(). */
  restart(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => finish(false), 500);
    function finish(ok: boolean): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    }
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => finish(data.toString().startsWith('+PONG')));
  });
}

function spawnRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
}

/** Waits (at most 10 s) until `child` answers PING on `port`; kills it otherwise. */
async function awaitPing(child: ChildProcess, port: number): Promise<void> {
  let ready = false;
  for (let attempt = 0; attempt < 100 && !ready && child.exitCode === null; attempt++) {
    ready = await answersPing(port);
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`redis-server did not start on port ${port}`);
  }
}

function exitOf(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Spawns redis-server and waits (at most 10 s) until it answers PING. */
export async function startRedis(): Promise<RedisProcess> {
  const port = await freePort();
  let child = spawnRedis(port);
  await awaitPing(child, port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      child.kill('SIGTERM');
      await exitOf(child, 5000);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exitOf(child, 5000);
    },
    restart: async () => {
      child = spawnRedis(port);
      await awaitPing(child, port);
    },
  };
}
