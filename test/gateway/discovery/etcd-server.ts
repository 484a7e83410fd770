/** Starts a real single-node etcd on free loopback ports with a temporary data dir, for tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface EtcdServer {
  url: string;
  stop(): Promise<void>;
  /** SIGKILLs etcd (an outage); its data stays for restart(). */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data, waiting (at most 20 s) until it is healthy. */
  restart(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok;
  } catch {
    return false;
  }
}

export async function startEtcd(port?: number): Promise<EtcdServer> {
  const [clientPort, peerPort] = [port ?? (await freePort()), await freePort()];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-etcd-'));
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  let stderr = '';
  const spawnEtcd = (): ChildProcess => {
    const child = spawn(
      'etcd',
      [
        '--name', 'fw-test', '--data-dir', dir,
        '--listen-client-urls', url, '--advertise-client-urls', url,
        '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
        '--initial-cluster', `fw-test=${peer}`, '--log-level', 'error',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    return child;
  };
  let child = spawnEtcd();
  const exited = (c: ChildProcess): Promise<void> =>
    c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const done = exited(child);
      child.kill('SIGTERM');
      await done;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const awaitHealthy = async (): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!(await healthy(url))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`etcd did not start: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await awaitHealthy();
  return {
    url,
    stop,
    kill: async () => {
      const done = exited(child);
      child.kill('SIGKILL');
      await done;
    },
    restart: async () => {
      child = spawnEtcd();
      await awaitHealthy();
    },
  };
}
