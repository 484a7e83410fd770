/**
 * Interop: Python's grpcio (Debian python3-grpcio) calls a proto-defined fw
 * service — unary, server streaming, client streaming, bidirectional — reads
 * a status error's code and message, runs a standard health Check, and calls
 * an inline (JSON-codec) service with its own JSON serializers. Stubs
 * are generated at test time with grpc_tools.protoc into a temp dir.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGrpcApplication, type GrpcApplication } from 'fw/grpc';
import { loadUserProto, protoUserService } from '../../grpc/fixtures/proto-user-service';
import { PEERS, requirePeers } from '../../support/peers';
import { runPython } from '../../support/python';

const run = (args: string[], timeoutMs = 20_000): Promise<string> => runPython(args, timeoutMs);

const fixtures = path.join(__dirname, '..', '..', 'grpc', 'fixtures');


requirePeers(PEERS.grpcio)('Python grpcio client against a fw gRPC server', () => {
  let app: GrpcApplication;
  let stubs: string;
  let address: string;

  beforeAll(async () => {
    stubs = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-grpc-py-'));
    const include = (await run(['-c', 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))'])).trim();
    // Debian's protoc predates proto3 `optional`; the wire format is the same without the label.
    const protos = path.join(stubs, 'protos');
    fs.mkdirSync(protos);
    fs.writeFileSync(path.join(protos, 'user.proto'), fs.readFileSync(path.join(fixtures, 'user.proto'), 'utf8').replace(/\boptional /g, ''));
    fs.copyFileSync(path.join(fixtures, 'health.proto'), path.join(protos, 'health.proto'));
    await run(['-m', 'grpc_tools.protoc', `-I${protos}`, `-I${include}`, `--python_out=${stubs}`, `--grpc_python_out=${stubs}`, 'user.proto', 'health.proto']);
    app = createGrpcApplication()
      .addService(protoUserService(loadUserProto()))
      .addService({ name: 'Echo', methods: { Echo: { handler: async (request: Record<string, unknown>) => ({ ...request, echoed: true }) } } });
    const { port } = await app.listen(0, '127.0.0.1');
    address = `127.0.0.1:${port}`;
  }, 60_000);

  afterAll(async () => {
    await app?.close({ timeoutMs: 1000 });
    fs.rmSync(stubs, { recursive: true, force: true });
  });

  it('makes all four kinds of call, reads a GrpcError, and checks health', async () => {
    const output = await run([path.join(__dirname, 'user_client.py'), stubs, address]);
    const result = JSON.parse(output) as Record<string, unknown>;
    expect(result.created).toEqual({ id: expect.any(String), name: 'Py', roles: ['reader'], created_seconds: expect.any(Number) });
    expect(result.fetched_email).toBe('py@example.com');
    expect(result.error).toEqual({ code: 'NOT_FOUND', code_value: 5, details: 'User not found' });
    expect(result.batch_count).toBe(2);
    expect(result.listed).toEqual(['Py', 'P1', 'P2']);
    expect(result.chat).toEqual([
      ['system', 'welcome'],
      ['py', 'echo: hello'],
      ['py', 'echo: bye'],
    ]);
    expect(result.json_echo).toEqual({ hello: 'from python', n: 3, echoed: true });
    expect(result.health_overall).toBe('SERVING');
    expect(result.health_users).toBe('SERVING');
  }, 60_000);
});
