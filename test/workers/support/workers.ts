/**
 * Starting the `workers` gateway fixture in a child process, and one call
 * per protocol, each over a connection of its own (so the kernel's
 * spreading of connections over the workers is what picks the worker).
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { waitForExit } from '../../support/child-exit';
import { HOST } from '../../gateway/support/clients';
import { JSON_CODEC, type Connection } from '../../conformance/adapter-types';
import { grpcJs } from '../../conformance/grpc-adapters';
import { tcp, udp, webSocket } from '../../conformance/socket-adapters';

export const PROTOCOLS = ['http', 'websocket', 'grpc', 'tcp', 'udp'] as const;
export type TestProtocol = (typeof PROTOCOLS)[number];

export interface Started {
  child: ChildProcess;
  port: number;
  udpPort: number;
  adminPort: number | undefined;
  /** The child's stderr so far (warnings of restarts). */
  stderr(): string;
  stop(): Promise<void>;
}

/** Forks the fixture (the cluster primary) with `env`; resolves once every worker listens. */
export function startWorkers(env: Record<string, string>, fixture = 'workers-gateway.js'): Promise<Started> {
  const child = fork(path.join(__dirname, '..', 'fixtures', fixture), [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`workers did not listen within 60 s: ${stderr}`));
    }, 60_000);
    const onExit = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`the primary exited with ${String(code)} before listening: ${stderr}`));
    };
    child.once('exit', onExit);
    child.on('message', (message: { listening?: { port: number; udpPort: number; adminPort?: number }; failed?: string }) => {
      if (message.failed !== undefined) {
        clearTimeout(timer);
        reject(new Error(message.failed));
      }
      if (message.listening === undefined) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({
        child,
        port: message.listening.port,
        udpPort: message.listening.udpPort,
        adminPort: message.listening.adminPort,
        stderr: () => stderr,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          if (!(await waitForExit(child, 20_000))) child.kill('SIGKILL');
        },
      });
    });
  });
}

/** An HTTP request over a connection of its own; resolves with the status and the body (parsed when JSON). */
export function httpCall(port: number, pathName: string, body: unknown = {}, method = 'POST'): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const payload = method === 'GET' ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: HOST, port, path: pathName, method, agent: false, headers: payload === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: Record<string, unknown> = {};
        try {
          parsed = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // Prometheus text and empty bodies stay in `text`.
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('http call timed out')));
    req.end(payload);
  });
}

/** A connection of the protocol's conformance client to the gateway's ports. */
export async function connectionOf(protocol: Exclude<TestProtocol, 'http'>, port: number, udpPort: number): Promise<Connection> {
  const base = `http://${HOST}:${port}`;
  if (protocol === 'websocket') return webSocket(base, 'json');
  if (protocol === 'grpc') return grpcJs(port, JSON_CODEC);
  if (protocol === 'tcp') return tcp(port);
  return udp(udpPort);
}

/** Calls `Workers/<method>` once over `protocol`, on a connection of its own; resolves with the reply. */
export async function callOver(protocol: TestProtocol, s: { port: number; udpPort: number }, method: string, input: unknown = {}): Promise<Record<string, unknown>> {
  if (protocol === 'http') {
    const res = await httpCall(s.port, `/api/Workers/${method}`, input);
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text}`);
    return res.body.data as Record<string, unknown>;
  }
  const connection = await connectionOf(protocol, s.port, s.udpPort);
  try {
    const outcome = await connection.call('Workers', method, 'unary', input);
    if (outcome.error !== undefined) throw new Error(`${protocol}: ${JSON.stringify(outcome.error)}`);
    return outcome.items[0] as Record<string, unknown>;
  } finally {
    connection.close();
  }
}

/** The worker pids that answer `protocol` over up to `attempts` fresh connections (stops once `want` are seen). */
export async function pidsOver(protocol: TestProtocol, s: { port: number; udpPort: number }, want: number, attempts = 60): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < attempts && pids.size < want; i++) pids.add((await callOver(protocol, s, 'Pid')).pid as number);
  return pids;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
