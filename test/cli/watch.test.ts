/**
 * `fw-gen --watch`: after the first run, editing a proto regenerates its
 * outputs (debounced). The watcher is a child process this test starts and
 * stops by its own handle; waiting is bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GREETER_ADDED, GREETER_V1 } from './support/greeter-protos';
import { makeTemp, removeTemp } from './support/run-cli';
import { waitForExit } from '../support/child-exit';

const RUNNER = path.join(__dirname, 'support', 'cli-runner.js');

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describe('fw-gen --watch', () => {
  let dir: string;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    dir = makeTemp('watch');
    fs.mkdirSync(path.join(dir, 'proto'));
    fs.writeFileSync(path.join(dir, 'proto', 'greet.proto'), GREETER_V1);
  });

  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = waitForExit(child, 5000);
      child.kill('SIGINT');
      if (!(await exited)) child.kill('SIGKILL');
    }
    removeTemp(dir);
  });

  it('regenerates when a proto changes', async () => {
    let stdout = '';
    child = spawn(process.execPath, [RUNNER, 'proto', '--out', 'generated', '--watch'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    expect(await waitFor(() => stdout.includes('watching for changes'), 30_000)).toBe(true);
    const fw = path.join(dir, 'generated', 'greet.fw.ts');
    expect(fs.readFileSync(fw, 'utf8')).not.toContain('SayToAll');
    fs.writeFileSync(path.join(dir, 'proto', 'greet.proto'), GREETER_ADDED);
    expect(await waitFor(() => fs.readFileSync(fw, 'utf8').includes('SayToAll'), 30_000)).toBe(true);
    expect(await waitFor(() => fs.readFileSync(path.join(dir, 'src', 'greet.service.ts'), 'utf8').includes('async sayToAll('), 10_000)).toBe(true);
  });
});
