/**
 * Streams forwarded to an instance that freezes (SIGSTOP): a server stream
 * has no deadline of its own (a chat may last hours), so the liveness
 * watchdog decides. An instance that answers its HTTP/2 PING keeps its quiet
 * streams; one that answers nothing has its streams failed UNAVAILABLE
 * after a bounded wait, instead of holding the caller forever. The gateway
 * keeps running either way.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { ProtocolGateway } from 'fw';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { waitForExit } from '../../support/child-exit';
import { HOST } from '../support/clients';
import { userServiceGrpcClient } from '../support/user-service-clients';

function startInstance(id: string): Promise<{ port: number; child: ChildProcess }> {
  const child = fork(path.join(__dirname, 'fixtures', 'user-instance-process.js'), [id], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ port: m.port, child }));
    child.once('exit', (code) => reject(new Error(`instance ${id} exited (${String(code)})`)));
  });
}

describe('a forwarded server stream whose instance freezes', () => {
  let instance: { port: number; child: ChildProcess };
  let gateway: ProtocolGateway;
  let client: ReturnType<typeof userServiceGrpcClient>['client'];
  const events: string[] = [];

  beforeAll(async () => {
    instance = await startInstance('s');
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.addEventSink({ onEvent: (e) => void (e.type === 'discovery' && events.push(e.decision)) });
    gateway.configureServiceDiscovery({
      provider: 'static',
      services: { UserService: { descriptor: UserServiceDescriptor, instances: [{ host: HOST, port: instance.port }] } },
      forwarding: { liveness: { stallMs: 300, pingTimeoutMs: 500 } },
    });
    const { port } = await gateway.listen(0, HOST);
    client = userServiceGrpcClient(HOST, port as number).client;
  }, 30_000);

  afterAll(async () => {
    client?.close();
    await gateway?.close();
    instance?.child.kill('SIGCONT');
    instance?.child.kill('SIGKILL');
    if (instance !== undefined) await waitForExit(instance.child, 5000);
  });

  const open = (): { call: grpc.ClientReadableStream<{ name: string }>; first: Promise<{ name: string }>; failed: Promise<grpc.ServiceError> } => {
    const call = (client as unknown as { listUsers(r: object): grpc.ClientReadableStream<{ name: string }> }).listUsers({});
    const first = new Promise<{ name: string }>((resolve) => call.once('data', resolve));
    const failed = new Promise<grpc.ServiceError>((resolve) => call.on('error', resolve));
    return { call, first, failed };
  };

  it('a quiet stream on a live instance stays open past the stall time (the PING is answered)', async () => {
    const { call, first, failed } = open();
    expect((await first).name).toBe('streamed by s');
    const outcome = await Promise.race([failed, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 1500))]);
    expect(outcome).toBe('open');
    call.cancel();
    await failed;
  });

  it('a frozen instance: the stream fails UNAVAILABLE after a bounded wait, naming the instance', async () => {
    const { first, failed } = open();
    expect((await first).name).toBe('streamed by s');
    instance.child.kill('SIGSTOP');
    const error = await Promise.race([failed, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000))]);
    instance.child.kill('SIGCONT');
    expect(error).toBeDefined();
    expect((error as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
    expect((error as grpc.ServiceError).details).toMatch(/unresponsive/);
    expect(events).toContain('instance_unresponsive');
  }, 20_000);
});
