/**
 * protoc-gen-fw under `buf generate`, in a scaffold made by `fw-gen init`
 * whose node_modules links this checkout (as an install would hold it):
 * `buf build` and `buf lint` pass on the buf.yaml init writes, and
 * `buf generate` with its buf.gen.yaml writes byte for byte what `fw-gen`
 * writes — for the scaffold and for the repository's user.proto.
 * test/project does the same with fw packed and installed.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { resolveBuf } from '../../cli/buf-build';
import { copyTree, listTree, makeTemp, removeTemp, REPO_ROOT, runCli } from './support/run-cli';

jest.setTimeout(120_000);

const PLUGIN_RUNNER = path.join(__dirname, 'support', 'plugin-runner.js');

function buf(args: string[], cwd: string): { status: number; output: string } {
  const cmd = resolveBuf();
  const r = spawnSync(cmd.file, [...cmd.prefix, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
}

/** Every file under `dir` with its content. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listTree(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
}

describe('protoc-gen-fw', () => {
  let dir = '';
  beforeAll(() => {
    dir = path.join(makeTemp('plugin'), 'shop');
    expect(runCli(['init', dir, '--fw', 'file:../fw']).status).toBe(0);
    // What `npm ci` would put there: this fw, and google-proto-files beside it.
    fs.mkdirSync(path.join(dir, 'node_modules'));
    const name = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string }).name;
    fs.symlinkSync(REPO_ROOT, path.join(dir, 'node_modules', name), 'dir');
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', 'google-proto-files'), path.join(dir, 'node_modules', 'google-proto-files'), 'dir');
    // The plugin from sources, so the test never runs a stale dist/.
    const genYaml = path.join(dir, 'buf.gen.yaml');
    fs.writeFileSync(genYaml, fs.readFileSync(genYaml, 'utf8').replace(/node_modules\/[^/\]]+\/bin\/protoc-gen-fw\.js/, PLUGIN_RUNNER));
  });
  afterAll(() => removeTemp(path.dirname(dir)));

  it('buf build and buf lint pass on the buf.yaml init writes', () => {
    expect(buf(['build', '-o', '/dev/null'], dir)).toEqual({ status: 0, output: '' });
    expect(buf(['lint'], dir)).toEqual({ status: 0, output: '' });
  });

  it('buf generate writes what fw-gen writes, for the scaffold and for user.proto', () => {
    const byFwGen = snapshot(path.join(dir, 'generated'));
    fs.rmSync(path.join(dir, 'generated'), { recursive: true });
    expect(buf(['generate'], dir)).toEqual({ status: 0, output: '' });
    expect(snapshot(path.join(dir, 'generated'))).toEqual(byFwGen);

    copyTree(path.join(REPO_ROOT, 'proto'), path.join(dir, 'proto'));
    fs.writeFileSync(path.join(dir, 'buf.gen.yaml'), fs.readFileSync(path.join(dir, 'buf.gen.yaml'), 'utf8').replace('module=esm', 'module=commonjs'));
    expect(buf(['generate'], dir)).toEqual({ status: 0, output: '' });
    const generated = snapshot(path.join(dir, 'generated'));
    const repoGenerated = snapshot(path.join(REPO_ROOT, 'generated'));
    for (const [file, text] of Object.entries(repoGenerated)) expect({ file, text: generated[file] }).toEqual({ file, text });
  });

  it('answers an unknown option with an error buf shows', () => {
    fs.writeFileSync(path.join(dir, 'buf.gen.yaml'), fs.readFileSync(path.join(dir, 'buf.gen.yaml'), 'utf8').replace(/opt: module=\w+/, 'opt: flavour=spicy'));
    const r = buf(['generate'], dir);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('protoc-gen-fw: unknown option "flavour=spicy" (known: module=esm|commonjs)');
  });
});
