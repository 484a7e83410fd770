/**
 * fw in a project where the team already runs buf: fw and fw-gen packed into
 * tarballs and installed into a new project outside this repository, `npx fw-gen init`,
 * `npm install`; then `buf build` and `buf lint` pass on the buf.yaml init
 * wrote, `buf generate` through the installed `protoc-gen-fw` writes exactly
 * what `fw-gen` wrote, and `fw-gen --check --against` in a git repository
 * catches a renumbered field. Step times are printed at the end.
 *
 * Slow (npm install): not part of `npm test`; `npm run test:project` runs it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { packFw, run, tempDir, times, variantEnv } from './support/project-steps';

jest.setTimeout(20 * 60_000);

/** Every file under `dir` (relative, `/`-separated) with its content. */
function snapshot(dir: string, base = dir, depth = 0): Record<string, string> {
  const out: Record<string, string> = {};
  if (depth > 16) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(out, snapshot(full, base, depth + 1));
    else out[path.relative(base, full).split(path.sep).join('/')] = fs.readFileSync(full, 'utf8');
  }
  return out;
}

describe('fw where teams already run buf, installed from its tarball', () => {
  const base = tempDir('buf-base');
  const env = variantEnv(undefined);

  afterAll(() => {
    const lines = times.filter((t) => t.variant === 'buf' || t.variant === 'pack').map((t) => `${t.variant.padEnd(6)} ${t.step.padEnd(40)} ${t.seconds.toFixed(1).padStart(6)} s`);
    process.stdout.write(`\n${lines.join('\n')}\n`);
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('buf build, buf lint and buf generate (protoc-gen-fw) work in the scaffold and agree with fw-gen; --against catches a break', () => {
    const packed = packFw(base, env);
    const dir = path.join(base, 'shop');
    fs.mkdirSync(dir);
    const step = (name: string, command: string, args: readonly string[]): string => run('buf', name, dir, command, args, env);
    step('npm install <fw> <fw-gen>', 'npm', ['install', packed.fw.tarball, packed.fwGen.tarball]);
    step('npx fw-gen init', 'npx', ['fw-gen', 'init', '.']);
    step('npm install', 'npm', ['install']);

    step('npx buf build', 'npx', ['buf', 'build', '-o', path.join(base, 'image.binpb')]);
    step('npx buf lint', 'npx', ['buf', 'lint']);

    const byFwGen = snapshot(path.join(dir, 'generated'));
    const stub = fs.readFileSync(path.join(dir, 'src', 'shop.service.ts'), 'utf8');
    fs.rmSync(path.join(dir, 'generated'), { recursive: true });
    step('npx buf generate (protoc-gen-fw)', 'npx', ['buf', 'generate']);
    expect(snapshot(path.join(dir, 'generated'))).toEqual(byFwGen);
    expect(fs.readFileSync(path.join(dir, 'src', 'shop.service.ts'), 'utf8')).toBe(stub);
    expect(step('npx fw-gen --check proto', 'npx', ['fw-gen', '--check', 'proto'])).toContain('up to date');

    // The CI workflow's breaking check, against a commit of the scaffold.
    const git = (...args: string[]): string => step(`git ${args[0] ?? ''}`, 'git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args]);
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'scaffold');
    const proto = path.join(dir, 'proto', 'shop.proto');
    fs.writeFileSync(proto, fs.readFileSync(proto, 'utf8').replace(/string name = 1;/, 'string name = 10;'));
    step('npx fw-gen proto', 'npx', ['fw-gen', 'proto']);
    const broken = spawnSync('npx', ['fw-gen', '--check', 'proto', '--against', 'HEAD'], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
    expect(broken.status).toBe(1);
    expect(broken.stderr).toMatch(/proto\/shop\.proto:\d+:\d+: FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED: Previously present field "1" with name "name" on message "HelloRequest"/);
  });
});
