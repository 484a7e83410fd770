/**
 * `fw-gen --check`, each case on a temp copy with the real CLI: exit 0 when
 * everything is up to date; exit 1 with a unified diff for a stale, missing
 * or extra generated file (a deleted proto's leftovers included) and for a
 * stub lacking a method. `--check` never writes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GREETER_ADDED, GREETER_V1 } from './support/greeter-protos';
import { listTree, makeTemp, removeTemp, runCli } from './support/run-cli';

// Each case runs the real CLI several times; a loaded machine can take a while.
jest.setTimeout(120_000);

const OTHER = `syntax = "proto3";
package other;
message PingMessage { string id = 1; }
service Pinger { rpc Ping(PingMessage) returns (PingMessage); }
`;

describe('fw-gen --check', () => {
  let dir: string;
  const check = (): ReturnType<typeof runCli> => runCli(['--check', 'proto', '--out', 'generated'], dir);
  const snapshot = (): Record<string, string> =>
    Object.fromEntries(listTree(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));

  beforeEach(() => {
    dir = makeTemp('check');
    fs.mkdirSync(path.join(dir, 'proto'));
    fs.writeFileSync(path.join(dir, 'proto', 'greet.proto'), GREETER_V1);
    fs.writeFileSync(path.join(dir, 'proto', 'other.proto'), OTHER);
    expect(runCli(['proto', '--out', 'generated', '--quiet'], dir).status).toBe(0);
  });
  afterEach(() => removeTemp(dir));

  it('exits 0 on an up-to-date tree', () => {
    const result = check();
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe('fw-gen: 10 generated files and 2 stubs are up to date');
  });

  it('counts in the singular when there is one stub', () => {
    fs.rmSync(path.join(dir, 'proto', 'other.proto'));
    expect(runCli(['proto', '--out', 'generated', '--quiet'], dir).status).toBe(0);
    expect(check().stdout.trim()).toBe('fw-gen: 5 generated files and 1 stub are up to date');
  });

  it('exits 1 with a diff when a generated file is stale, and writes nothing', () => {
    const file = path.join(dir, 'generated', 'greet.fw.ts');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("name: 'Greeter'", "name: 'Tampered'"));
    const before = snapshot();
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('--- a/generated/greet.fw.ts');
    expect(result.stdout).toContain("-  name: 'Tampered',");
    expect(result.stdout).toContain("+  name: 'Greeter',");
    expect(result.stderr).toContain('generated/greet.fw.ts (stale)');
    expect(snapshot()).toEqual(before);
  });

  it('exits 1 when a proto changed and its outputs were not regenerated', () => {
    fs.writeFileSync(path.join(dir, 'proto', 'greet.proto'), GREETER_ADDED);
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('generated/greet.fw.ts (stale)');
    expect(result.stderr).toContain('src/greet.service.ts (stub lacks a method, has a stale signature or imports a name that is gone)');
    expect(result.stdout).toContain('+  async sayToAll(requests: AsyncIterable<HelloRequest>');
    // The changed descriptor line (under the comment naming its element) shows as a short fingerprint.
    expect(result.stdout).toMatch(/^- +'…' \(embedded descriptor: \d+ base64 chars, sha256 [0-9a-f]{12}, elided\),$/m);
    expect(result.stdout).toMatch(/^\+ +'…' \(embedded descriptor: \d+ base64 chars, sha256 [0-9a-f]{12}, elided\),$/m);
    expect(Math.max(...result.stdout.split('\n').map((l) => l.length))).toBeLessThan(400);
  });

  it('exits 1 when a generated file is missing', () => {
    fs.rmSync(path.join(dir, 'generated', 'greet.openapi.json'));
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('generated/greet.openapi.json (missing)');
  });

  it('exits 1 for files left over from a deleted proto', () => {
    fs.rmSync(path.join(dir, 'proto', 'other.proto'));
    const result = check();
    expect(result.status).toBe(1);
    for (const f of ['other.ts', 'other.fw.ts', 'other.openapi.json']) expect(result.stderr).toContain(`generated/${f} (extra: no proto generates it)`);
    // The user's stub is never reported as extra: it is theirs.
    expect(result.stderr).not.toContain('other.service.ts');
    // Regenerating removes them, and the check passes again.
    expect(runCli(['proto', '--out', 'generated', '--quiet'], dir).status).toBe(0);
    expect(fs.existsSync(path.join(dir, 'generated', 'other.fw.ts'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'src', 'other.service.ts'))).toBe(true);
    expect(check().status).toBe(0);
  });

  it('exits 1 when a stub lacks a method', () => {
    const stub = path.join(dir, 'src', 'greet.service.ts');
    const text = fs.readFileSync(stub, 'utf8');
    const start = text.indexOf('\n\n  async *sayMany(');
    const end = text.indexOf('\n  }', start + 2) + 4;
    fs.writeFileSync(stub, text.slice(0, start) + text.slice(end));
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('src/greet.service.ts (stub lacks a method, has a stale signature or imports a name that is gone)');
    expect(result.stdout).toContain('+  async *sayMany(request: HelloRequest, context: RequestContext): AsyncGenerator<HelloReply, void> {');
  });

  it('exits 1 when a stub was deleted', () => {
    fs.rmSync(path.join(dir, 'src', 'greet.service.ts'));
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('src/greet.service.ts (missing stub)');
  });
});
