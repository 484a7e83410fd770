/**
 * fw's gRPC server reflection read by a real reflection client: Python
 * grpcio (reflection_client.py, stubs compiled from the reflection protos)
 * lists the services over both versions, fetches each one's file with the
 * files it needs, and builds a descriptor pool from them, as grpcurl does.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGrpcApplication, type GrpcApplication } from 'fw/grpc';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { PEERS, requirePeers } from '../../support/peers';
import { runPython } from '../../support/python';

const run = (args: string[], timeoutMs = 30_000): Promise<string> => runPython(args, timeoutMs);


requirePeers(PEERS.grpcio)('Python grpcio reflection client against fw', () => {
  let app: GrpcApplication;
  let stubs: string;
  let address: string;

  beforeAll(async () => {
    stubs = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-grpc-reflection-py-'));
    const protoRoot = path.dirname(require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto'));
    for (const version of ['v1', 'v1alpha']) {
      // One module per version: both protos are called reflection.proto.
      const dir = path.join(stubs, `${version}_src`);
      fs.mkdirSync(dir);
      fs.copyFileSync(path.join(protoRoot, '..', version, 'reflection.proto'), path.join(dir, `${version}_reflection.proto`));
      await run(['-m', 'grpc_tools.protoc', `-I${dir}`, `--python_out=${stubs}`, `--grpc_python_out=${stubs}`, `${version}_reflection.proto`]);
    }
    app = createGrpcApplication().addService(UserServiceDescriptor, {}).enableReflection();
    const { port } = await app.listen(0, '127.0.0.1');
    address = `127.0.0.1:${port}`;
  }, 60_000);

  afterAll(async () => {
    await app?.close({ timeoutMs: 1000 });
    fs.rmSync(stubs, { recursive: true, force: true });
  });

  it('lists the services and loads their files into a descriptor pool', async () => {
    const result = JSON.parse(await run([path.join(__dirname, 'reflection_client.py'), stubs, address])) as Record<string, { services: Record<string, Record<string, string[]>>; missing_code: number }>;
    const methods = Object.keys(UserServiceDescriptor.methods).sort();
    for (const version of ['v1', 'v1alpha']) {
      const seen = result[version]!;
      expect(Object.keys(seen.services)).toContain('user.UserService');
      expect(Object.keys(seen.services['user.UserService']!).sort()).toEqual(methods);
      expect(seen.services['user.UserService']!['GetUser']).toEqual(['id']);
      expect(seen.missing_code).toBe(5);
    }
  }, 60_000);
});
