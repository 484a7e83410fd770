/**
 * Every refusal of the CLI: exit code 2 and a clear message for a missing
 * file, a non-proto file, a proto syntax error (file:line:col), an unknown
 * import, an unknown option and no arguments; `--help` and `--version` exit 0.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTemp, removeTemp, REPO_ROOT, runCli } from './support/run-cli';

// Each case runs the real CLI several times; a loaded machine can take a while.
jest.setTimeout(120_000);

describe('fw-gen usage and input errors', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTemp('errors');
    fs.mkdirSync(path.join(dir, 'proto'));
  });
  afterAll(() => removeTemp(dir));

  it('prints help and exits 0', () => {
    const result = runCli(['--help'], dir);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: fw-gen [options] <paths...>');
    expect(result.stdout).toContain('--check');
    expect(result.stdout).toContain('--watch');
  });

  it('prints the package version and exits 0', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = runCli(['--version'], dir);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  it('exits 2 for an unknown option', () => {
    const result = runCli(['proto', '--frobnicate'], dir);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown option '--frobnicate'");
  });

  it('prints the usage and exits 2 without arguments', () => {
    const result = runCli([], dir);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Usage: fw-gen [options] <paths...>');
    expect(result.stderr).toContain('fw-gen init [dir]');
    expect(result.stderr).toContain('--module <system>');
  });

  it('exits 2 for a bad --module value', () => {
    fs.writeFileSync(path.join(dir, 'proto', 'ok.proto'), 'syntax = "proto3";\npackage ok;\nmessage A { string a = 1; }\n');
    const result = runCli(['proto/ok.proto', '--module', 'amd', '--out', 'out-module'], dir);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe('fw-gen: --module amd: expected esm or commonjs');
    fs.rmSync(path.join(dir, 'proto', 'ok.proto'));
  });

  it('exits 2 for a missing file', () => {
    const result = runCli(['proto/nope.proto'], dir);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe('fw-gen: proto/nope.proto: no such file or directory');
  });

  it('exits 2 for a file that is not a proto', () => {
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'hello');
    const result = runCli(['notes.txt'], dir);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('not a .proto file or a directory');
  });

  it('exits 2 for a directory without protos', () => {
    fs.mkdirSync(path.join(dir, 'empty'), { recursive: true });
    const result = runCli(['empty'], dir);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no .proto files found');
  });

  it('exits 2 with file:line:col for a syntax error, writing nothing', () => {
    fs.writeFileSync(path.join(dir, 'proto', 'bad.proto'), 'syntax = "proto3";\npackage bad;\nmessage A {\n  string a = 1\n}\n');
    const result = runCli(['proto/bad.proto', '--out', 'out'], dir);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe('proto/bad.proto:5:1: unexpected `}` after definition');
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
    fs.rmSync(path.join(dir, 'proto', 'bad.proto'));
  });

  it('exits 2 with file:line:col for an unknown import and an unknown type', () => {
    fs.writeFileSync(path.join(dir, 'proto', 'imp.proto'), 'syntax = "proto3";\npackage imp;\nimport "missing/thing.proto";\nmessage A {\n  Nope a = 1;\n}\n');
    const result = runCli(['proto/imp.proto'], dir);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('proto/imp.proto:3:1: imported file does not exist');
    // The missing file, where it was looked for, and how to add a root.
    expect(result.stderr).toContain('"missing/thing.proto" was looked for in proto (import roots)');
    expect(result.stderr).toContain('add its root with -I <dir>');
    expect(result.stderr).toContain('proto/imp.proto:5:3:');
    fs.rmSync(path.join(dir, 'proto', 'imp.proto'));
  });
});

describe('fw-gen output errors', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTemp('output-errors');
    fs.mkdirSync(path.join(dir, 'proto'));
    fs.writeFileSync(path.join(dir, 'proto', 'a.proto'), 'syntax = "proto3";\npackage a;\nmessage M { string s = 1; }\nservice S { rpc Get(M) returns (M); }\n');
  });
  afterAll(() => removeTemp(dir));

  it('exits 2 with a one-line message when the output directory is a file', () => {
    fs.writeFileSync(path.join(dir, 'out'), 'not a directory');
    const result = runCli(['proto', '--out', 'out'], dir);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^fw-gen: E(EXIST|NOTDIR)/);
    expect(fs.readFileSync(path.join(dir, 'out'), 'utf8')).toBe('not a directory');
  });
});
