/**
 * System peers some suites talk to (redis-server, etcd, Chromium, grpcio, …).
 * `npm install && npm test` must pass on a machine without them: such a suite
 * is then skipped with "skipped: <peer> not installed (apt-get install <pkg>)"
 * in its title (and in the closing summary). CI installs the peers and sets
 * FW_REQUIRE_PEERS=1, under which a missing peer fails the suite instead.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface Peer {
  /** What the message calls it. */
  name: string;
  /** Debian packages that provide it. */
  apt: string;
  /** True when it can be used here. */
  present(env: NodeJS.ProcessEnv): boolean;
}

/** True when `command` is an executable file in one of env.PATH's folders. */
export function onPath(command: string, env: NodeJS.ProcessEnv = process.env): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    try {
      fs.accessSync(path.join(dir, command), fs.constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The interpreter the interop suites call (Debian's, where python3-grpcio installs). */
export const PYTHON = '/usr/bin/python3';
/** The browser the WebSocket interop suite drives. */
export const CHROMIUM = '/usr/bin/chromium';

/** A command found on PATH. */
export function commandPeer(command: string, apt = command): Peer {
  return { name: command, apt, present: (env) => onPath(command, env) };
}

export const PEERS = {
  redis: commandPeer('redis-server'),
  etcd: commandPeer('etcd', 'etcd-server'),
  curl: commandPeer('curl'),
  openssl: commandPeer('openssl'),
  prometheus: { name: 'prometheus', apt: 'prometheus', present: (env) => onPath('prometheus', env) && onPath('promtool', env) } satisfies Peer,
  chromium: { name: 'chromium', apt: 'chromium', present: () => executable(CHROMIUM) } satisfies Peer,
  grpcio: {
    name: 'Python grpcio',
    apt: 'python3-grpcio python3-grpc-tools',
    present: () => executable(PYTHON) && spawnSync(PYTHON, ['-c', 'import grpc, grpc_tools'], { stdio: 'ignore', timeout: 20_000 }).status === 0,
  } satisfies Peer,
} as const;

/** What to do with a suite, given which of its peers are missing. */
export type PeerDecision = { run: true } | { run: false; fail: boolean; message: string };

/** Runs when nothing is missing; otherwise skips, or fails when FW_REQUIRE_PEERS=1. */
export function decide(missing: readonly Peer[], env: NodeJS.ProcessEnv = process.env): PeerDecision {
  if (missing.length === 0) return { run: true };
  const names = missing.map((p) => p.name).join(', ');
  const apt = missing.map((p) => p.apt).join(' ');
  const fail = env.FW_REQUIRE_PEERS === '1';
  const message = fail
    ? `${names} not installed (apt-get install ${apt}), and FW_REQUIRE_PEERS=1 requires it`
    : `skipped: ${names} not installed (apt-get install ${apt})`;
  return { run: false, fail, message };
}

export type SuiteDeclaration = (name: string, body: () => void) => void;

/**
 * `describe` when every peer is present; otherwise a `describe.skip` whose
 * title says what is missing, or (FW_REQUIRE_PEERS=1) an error that fails the suite.
 *
 * @example
 * const describeWithRedis = requirePeers(PEERS.redis);
 * describeWithRedis('redis stores', () => { ... });
 */
export function requirePeers(...peers: Peer[]): SuiteDeclaration {
  const env = process.env;
  const decision = decide(peers.filter((p) => !p.present(env)), env);
  if (decision.run) return describe;
  if (decision.fail) throw new Error(decision.message);
  return (name, body) => describe.skip(`${name} — ${decision.message}`, body);
}
