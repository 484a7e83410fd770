/**
 * `fw-gen init` with the real CLI on temp folders: what it writes for ES
 * modules and CommonJS, a merged package.json, names from the folder, how it
 * depends on fw, generated code that `--check` finds up to date, and refusals
 * (existing files, a bad name) that write nothing. Compiling and running the
 * scaffold: test/docs/code-blocks.test.ts and test/project.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listTree, makeTemp, removeTemp, runCli } from './support/run-cli';

jest.setTimeout(120_000);

describe('fw-gen init', () => {
  const made: string[] = [];
  const temp = (name: string): string => {
    const dir = makeTemp(name);
    made.push(dir);
    return dir;
  };
  afterAll(() => made.forEach(removeTemp));

  it('scaffolds an ES module service whose generated code is up to date', () => {
    const dir = path.join(temp('init-esm'), 'my-shop');
    const result = runCli(['init', dir, '--fw', 'file:../fw']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('fw-gen init: MyShopService (ES modules)');
    expect(listTree(dir)).toEqual([
      '.dockerignore',
      '.github/workflows/ci.yml',
      '.gitignore',
      'Dockerfile',
      'README.md',
      'buf.gen.yaml',
      'buf.yaml',
      'generated/my_shop.browser-messages.ts',
      'generated/my_shop.browser.ts',
      'generated/my_shop.fw.ts',
      'generated/my_shop.openapi.json',
      'generated/my_shop.ts',
      'k8s/deployment.yaml',
      'k8s/pod-disruption-budget.yaml',
      'k8s/service.yaml',
      'package.json',
      'proto/my_shop.proto',
      'src/main.ts',
      'src/my_shop.service.ts',
      'src/server.ts',
      'test/my_shop.test.ts',
      'tsconfig.json',
    ]);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'my-shop', type: 'module', dependencies: { fw: 'file:../fw' }, scripts: { test: 'npm run build && node --test dist/test/my_shop.test.js' } });
    expect(fs.readFileSync(path.join(dir, 'src', 'server.ts'), 'utf8')).toContain("from '../generated/my_shop.fw.js';");
    expect(fs.readFileSync(path.join(dir, 'generated', 'my_shop.ts'), 'utf8')).toContain('from "fw/protobuf-wire";');
    const stub = fs.readFileSync(path.join(dir, 'src', 'my_shop.service.ts'), 'utf8');
    expect(stub).not.toContain('GrpcStatus.UNIMPLEMENTED');
    expect(stub).toContain('async *streamHellos(request: StreamHellosRequest, context: RequestContext): AsyncGenerator<HelloReply, void> {');
    const ci = fs.readFileSync(path.join(dir, '.github', 'workflows', 'ci.yml'), 'utf8');
    expect(ci).toContain('npx fw-gen --check proto');
    expect(ci).toContain('npx fw-gen --check proto --against "origin/${GITHUB_BASE_REF}"');
    expect(fs.readFileSync(path.join(dir, 'buf.gen.yaml'), 'utf8')).toContain('opt: module=esm');
    // No hand-written client interface and no service name by hand: both come from the descriptor.
    const test = fs.readFileSync(path.join(dir, 'test', 'my_shop.test.ts'), 'utf8');
    expect(test).toContain('createGrpcTestClient(MyShopServiceDescriptor, { app })');
    expect(test).not.toContain('my_shop.MyShopService');
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('npm install && npm test');
    const check = runCli(['--check', 'proto'], dir);
    expect(check.status).toBe(0);
    expect(check.stdout.trim()).toBe('fw-gen: 5 generated files and 1 stub are up to date');
  });

  it('merges an existing package.json (as npm install wrote it), vendors the tarballs, and scaffolds CommonJS', () => {
    const parent = temp('init-cjs');
    const dir = path.join(parent, 'greeter');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(parent, 'fw-0.1.0.tgz'), 'fw tarball');
    fs.writeFileSync(path.join(parent, 'fw-gen-0.1.0.tgz'), 'fw-gen tarball');
    const installed = { dependencies: { fw: 'file:../fw-0.1.0.tgz', 'fw-gen': 'file:../fw-gen-0.1.0.tgz', zod: '^3.0.0' }, scripts: { test: 'echo "Error: no test specified" && exit 1', lint: 'eslint .' } };
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(installed));
    const result = runCli(['init', '.', '--name', 'greeter', '--module', 'commonjs'], dir);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('  vendor/fw-0.1.0.tgz\n  vendor/fw-gen-0.1.0.tgz\n');
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { type?: string; dependencies: Record<string, string>; devDependencies: Record<string, string>; scripts: Record<string, string> };
    expect(manifest.type).toBeUndefined();
    // The tarballs travel with the project (a clone installs with an empty npm cache); the generator is a dev dependency.
    expect(manifest.dependencies).toEqual({ fw: 'file:vendor/fw-0.1.0.tgz', zod: '^3.0.0' });
    expect(manifest.devDependencies['fw-gen']).toBe('file:vendor/fw-gen-0.1.0.tgz');
    expect(fs.readFileSync(path.join(dir, 'vendor', 'fw-gen-0.1.0.tgz'), 'utf8')).toBe('fw-gen tarball');
    expect(manifest.scripts['lint']).toBe('eslint .');
    expect(manifest.scripts['test']).toBe('npm run build && node --test dist/test/greeter.test.js');
    expect(fs.readFileSync(path.join(dir, 'src', 'server.ts'), 'utf8')).toContain("from '../generated/greeter.fw';");
    expect(fs.readFileSync(path.join(dir, 'src', 'greeter.service.ts'), 'utf8')).toContain("from '../generated/greeter.fw';");
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).not.toContain('npmjs.com');
  });

  it('takes the fw and fw-gen specs of the enclosing project, rebased', () => {
    const parent = temp('init-parent');
    fs.writeFileSync(path.join(parent, 'package.json'), JSON.stringify({ dependencies: { fw: 'file:vendor/fw-0.1.0.tgz' }, devDependencies: { 'fw-gen': 'file:vendor/fw-gen-0.1.0.tgz' } }));
    expect(runCli(['init', 'services/greeter'], parent).status).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(parent, 'services', 'greeter', 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(manifest.dependencies['fw']).toBe('file:../../vendor/fw-0.1.0.tgz');
    expect(manifest.devDependencies['fw-gen']).toBe('file:../../vendor/fw-gen-0.1.0.tgz');
  });

  it('refuses to overwrite and writes nothing', () => {
    const dir = temp('init-taken');
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src', 'server.ts'), 'mine');
    const result = runCli(['init', '.', '--name', 'greeter'], dir);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('already has src/server.ts');
    expect(listTree(dir)).toEqual(['src/server.ts']);
  });

  it('refuses a name that does not start with a letter', () => {
    const dir = temp('init-name');
    const result = runCli(['init', '.', '--name', '42'], dir);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe('fw-gen init: cannot name a service after "42": use --name with a name that starts with a letter');
    expect(listTree(dir)).toEqual([]);
  });
});
