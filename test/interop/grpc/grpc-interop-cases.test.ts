/**
 * grpc's interop cases (doc/interop-test-descriptions.md) with grpc's own
 * TestService proto (fixtures/src/proto/grpc/testing), each way:
 * - Python grpcio's client (interop_client.py) against fw's server, whose
 *   handlers (interop-test-service.ts) sit on the fw-gen output in ./generated;
 * - fw's generated client (fw-interop-client.ts) against a grpcio server
 *   (interop_server.py).
 * Python stubs are generated at test time with grpc_tools.protoc. The checked-in
 * fw-gen output is compared with a fresh run; after changing cli/ or templates/
 * regenerate it with
 *   npx fw-gen test/interop/grpc/fixtures -o test/interop/grpc/generated --stubs /tmp/unused-stubs
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createGrpcApplication, type GrpcApplication } from 'fw/grpc';
import { runCli } from '../../cli/support/run-cli';
import { PEERS, PYTHON, requirePeers } from '../../support/peers';
import { runInteropCases } from './fw-interop-client';
import { interopHandlers } from './interop-test-service';
import { TestServiceDescriptor } from './generated/src/proto/grpc/testing/test.fw';

const root = path.resolve(__dirname, '../../..');
const fixtures = path.join(__dirname, 'fixtures');
const PROTOS = ['src/proto/grpc/testing/empty.proto', 'src/proto/grpc/testing/messages.proto', 'src/proto/grpc/testing/test.proto'];

/** Every case, in the order of the table in docs/grpc.md. */
const CASE_NAMES = [
  'empty_unary',
  'large_unary',
  'client_compressed_unary',
  'server_compressed_unary',
  'client_streaming',
  'client_compressed_streaming',
  'server_streaming',
  'server_compressed_streaming',
  'ping_pong',
  'empty_stream',
  'custom_metadata',
  'status_code_and_message',
  'special_status_message',
  'unimplemented_method',
  'unimplemented_service',
  'cancel_after_begin',
  'cancel_after_first_response',
  'timeout_on_sleeping_server',
];

const describeWithPython = requirePeers(PEERS.grpcio);

function run(file: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, cwd: root }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

describe('checked-in fw-gen output of grpc testing protos', () => {
  it('is what fw-gen generates now', async () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-interop-gen-'));
    try {
      const result = runCli(['test/interop/grpc/fixtures', '-o', fresh, '--stubs', path.join(fresh, 'stubs'), '-q']);
      expect(result.stderr).toBe('');
      const generated = path.join(__dirname, 'generated', 'src/proto/grpc/testing');
      for (const file of fs.readdirSync(generated)) {
        expect(fs.readFileSync(path.join(fresh, 'src/proto/grpc/testing', file), 'utf8')).toBe(fs.readFileSync(path.join(generated, file), 'utf8'));
      }
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  }, 60_000);
});

describeWithPython('grpc interop cases', () => {
  let stubs: string;

  beforeAll(async () => {
    stubs = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-interop-py-'));
    await run(PYTHON, ['-m', 'grpc_tools.protoc', `-I${fixtures}`, `--python_out=${stubs}`, `--grpc_python_out=${stubs}`, ...PROTOS]);
  }, 60_000);

  afterAll(() => fs.rmSync(stubs, { recursive: true, force: true }));

  describe('Python grpcio client → fw server', () => {
    let app: GrpcApplication;
    let results: Record<string, { ok: boolean; detail: string }>;
    const unexpected: unknown[] = [];

    beforeAll(async () => {
      app = createGrpcApplication().addService(TestServiceDescriptor, interopHandlers);
      app.onUnexpectedError((error: unknown) => unexpected.push(error));
      const { port } = await app.listen(0, '127.0.0.1');
      results = JSON.parse(await run(PYTHON, [path.join(__dirname, 'interop_client.py'), stubs, `127.0.0.1:${port}`], 120_000)) as typeof results;
    }, 150_000);

    afterAll(async () => {
      await app?.close({ timeoutMs: 1000 });
    });

    it.each(CASE_NAMES)('%s', (name) => {
      expect(results[name]).toEqual({ ok: true, detail: '' });
    });
  });

  describe('fw generated client → Python grpcio server', () => {
    let server: ChildProcess;
    let results: Record<string, string | undefined>;

    beforeAll(async () => {
      server = spawn(PYTHON, [path.join(__dirname, 'interop_server.py'), stubs], { stdio: ['pipe', 'pipe', 'inherit'] });
      const lines = createInterface({ input: server.stdout! });
      const port = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('interop_server.py did not print its port within 20 s')), 20_000);
        lines.once('line', (line) => {
          clearTimeout(timer);
          resolve(line.trim());
        });
        server.once('exit', (code) => reject(new Error(`interop_server.py exited with ${String(code)}`)));
      });
      results = await runInteropCases({ address: `127.0.0.1:${port}`, compressionProbe: false });
    }, 150_000);

    afterAll(async () => {
      if (server === undefined || server.exitCode !== null) return;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.stdin?.end();
      const timer = setTimeout(() => server.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    });

    it.each(CASE_NAMES)('%s', (name) => {
      expect(name in results).toBe(true);
      expect(results[name]).toBeUndefined();
    });
  });

  describe('fw generated client → fw server', () => {
    let app: GrpcApplication;
    let results: Record<string, string | undefined>;

    beforeAll(async () => {
      app = createGrpcApplication().addService(TestServiceDescriptor, interopHandlers);
      const { port } = await app.listen(0, '127.0.0.1');
      results = await runInteropCases({ address: `127.0.0.1:${port}`, compressionProbe: true });
    }, 150_000);

    afterAll(async () => {
      await app?.close({ timeoutMs: 1000 });
    });

    it.each(CASE_NAMES)('%s', (name) => {
      expect(results[name]).toBeUndefined();
    });
  });
});
