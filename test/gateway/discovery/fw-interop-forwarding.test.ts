/**
 * grpc's interop cases (fw's generated TestService client) through a
 * gateway that forwards to a real fw instance serving grpc.testing.TestService
 * (test/interop/grpc/interop-test-service.ts), the instance found through
 * the static provider and through a real etcd. TestService's messages carry
 * no buf.validate rules, so these calls pass through undecoded
 * (runtime/gateway/pass-through.ts). Compression is per hop: the gateway
 * decompresses a compressed request and forwards it uncompressed, so the
 * instance cannot check `expect_compressed`; the two client-compression
 * cases, which ask the server to check it, are left out.
 */
import { Etcd3 } from 'etcd3';
import { ProtocolGateway } from 'fw';
import { createGrpcApplication, type GrpcApplication } from 'fw/grpc';
import { registerEtcdInstance, type EtcdRegistration } from '../../../runtime/gateway/discovery';
import { runInteropCases } from '../../interop/grpc/fw-interop-client';
import { interopHandlers } from '../../interop/grpc/interop-test-service';
import { TestServiceDescriptor } from '../../interop/grpc/generated/src/proto/grpc/testing/test.fw';
import { PEERS, requirePeers } from '../../support/peers';
import { HOST } from '../support/clients';
import { startEtcd, type EtcdServer } from './etcd-server';

const CASES = [
  'empty_unary', 'large_unary', 'server_compressed_unary', 'client_streaming',
  'server_streaming', 'server_compressed_streaming', 'ping_pong', 'empty_stream', 'custom_metadata', 'status_code_and_message',
  'special_status_message', 'unimplemented_method', 'unimplemented_service', 'cancel_after_begin', 'cancel_after_first_response',
  'timeout_on_sleeping_server',
];

describe('interop cases through the gateway to a static fw instance', () => {
  let instance: GrpcApplication;
  let gateway: ProtocolGateway;
  let results: Record<string, string | undefined>;

  beforeAll(async () => {
    instance = createGrpcApplication().addService(TestServiceDescriptor, interopHandlers);
    const { port } = await instance.listen(0, HOST);
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.configureServiceDiscovery({ provider: 'static', services: { TestService: { descriptor: TestServiceDescriptor, instances: [{ host: HOST, port }] } } });
    const address = await gateway.listen(0, HOST);
    results = await runInteropCases({ address: `${HOST}:${address.port as number}`, compressionProbe: false });
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await instance?.close({ timeoutMs: 1000 });
  });

  it.each(CASES)('%s', (name) => {
    expect(results[name]).toBeUndefined();
  });
});

requirePeers(PEERS.etcd)('interop cases through the gateway to an fw instance found in etcd', () => {
  let etcd: EtcdServer;
  let client: Etcd3;
  let registration: EtcdRegistration;
  let instance: GrpcApplication;
  let gateway: ProtocolGateway;
  let results: Record<string, string | undefined>;

  beforeAll(async () => {
    etcd = await startEtcd();
    client = new Etcd3({ hosts: etcd.url });
    instance = createGrpcApplication().addService(TestServiceDescriptor, interopHandlers);
    const { port } = await instance.listen(0, HOST);
    registration = await registerEtcdInstance(client, 'TestService', { host: HOST, port }, { ttlSeconds: 30 });
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.configureServiceDiscovery({ provider: 'etcd', etcd: { hosts: etcd.url }, services: { TestService: { descriptor: TestServiceDescriptor } } });
    const address = await gateway.listen(0, HOST);
    results = await runInteropCases({ address: `${HOST}:${address.port as number}`, compressionProbe: false });
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await registration?.revoke();
    client?.close();
    await instance?.close({ timeoutMs: 1000 });
    await etcd?.stop();
  });

  it.each(CASES)('%s', (name) => {
    expect(results[name]).toBeUndefined();
  });
});
