/**
 * The peer gate of test/support/peers.ts: the decision itself, and a real jest
 * run of a suite needing redis-server with a PATH that has none — skipped with
 * the apt-get hint by default, failed under FW_REQUIRE_PEERS=1.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandPeer, decide, onPath, PEERS } from './peers';

const root = path.resolve(__dirname, '../..');
/** A PATH folder holding nothing but `node` (the system's own folder may hold redis-server too). */
const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-peers-'));
fs.symlinkSync(process.execPath, path.join(bin, 'node'));
const nodeOnly = { PATH: bin };
afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

/** Runs jest on the fixture suite with PATH holding only node's folder. */
function jestOnFixture(extraEnv: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  const args = [
    path.join(root, 'node_modules/jest/bin/jest.js'),
    '--ci',
    '--testPathIgnorePatterns=/node_modules/',
    '--testMatch=**/support/fixtures/needs-redis.fixture.ts',
    '--watchman=false',
  ];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, env: { ...nodeOnly, HOME: process.env.HOME, ...extraEnv }, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, output: stdout + stderr });
    });
  });
}

describe('peer gate', () => {
  it('finds commands only in PATH folders', () => {
    expect(onPath('node', nodeOnly)).toBe(true);
    expect(onPath('redis-server', nodeOnly)).toBe(false);
    expect(onPath('node', { PATH: '' })).toBe(false);
    expect(PEERS.etcd.present(nodeOnly)).toBe(false);
  });

  it('runs with every peer present, else skips naming the apt package, else fails under FW_REQUIRE_PEERS=1', () => {
    expect(decide([], {})).toEqual({ run: true });
    expect(decide([PEERS.etcd], {})).toEqual({ run: false, fail: false, message: 'skipped: etcd not installed (apt-get install etcd-server)' });
    expect(decide([PEERS.grpcio, commandPeer('curl')], { FW_REQUIRE_PEERS: '0' })).toEqual({
      run: false,
      fail: false,
      message: 'skipped: Python grpcio, curl not installed (apt-get install python3-grpcio python3-grpc-tools curl)',
    });
    expect(decide([PEERS.redis], { FW_REQUIRE_PEERS: '1' })).toEqual({
      run: false,
      fail: true,
      message: 'redis-server not installed (apt-get install redis-server), and FW_REQUIRE_PEERS=1 requires it',
    });
  });

  it('skips a suite whose peer is missing, visibly, and passes the run', async () => {
    const { code, output } = await jestOnFixture({});
    expect(output).toContain('skipped: redis-server not installed (apt-get install redis-server)');
    expect(output).toMatch(/tests: 0 passed, 0 failed, 1 skipped/);
    expect(code).toBe(0);
  });

  it('fails that suite instead when FW_REQUIRE_PEERS=1', async () => {
    const { code, output } = await jestOnFixture({ FW_REQUIRE_PEERS: '1' });
    expect(output).toContain('redis-server not installed (apt-get install redis-server), and FW_REQUIRE_PEERS=1 requires it');
    expect(code).toBe(1);
  });
});
