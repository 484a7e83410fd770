/**
 * Health (spec 4.7, standard grpc.health.v1.Health) and server reflection
 * (@grpc/reflection), read by grpc-js clients over loopback.
 */
import path from 'node:path';
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcStatus, loadProtoDefinition, type GrpcApplication, type GrpcMiddleware } from 'fw/grpc';
import { createGrpcTestClient } from 'fw/testing';
import { loadUserProto, protoUserService } from './fixtures/proto-user-service';
import { loadSync } from '@grpc/proto-loader';
import { userServiceDescriptor } from './fixtures/hand-descriptor';
import { USER_PROTO } from './fixtures/proto-user-service';
import { collect, listen, newApp, stopAll } from './fixtures/servers';

type Msg = Record<string, unknown>;
interface HealthClient {
  check(r: Msg, o?: { metadata?: Record<string, string> }): Promise<Msg>;
  watch(r: Msg, o?: { signal?: AbortSignal }): AsyncIterable<Msg>;
  close(): void;
}

const healthProto = loadProtoDefinition(path.join(__dirname, 'fixtures', 'health.proto'));
const reflectionProto = loadProtoDefinition(require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto'));

describe('health service', () => {
  let app: GrpcApplication;
  let health: HealthClient;

  beforeAll(async () => {
    const denyAll: GrpcMiddleware = () => {
      throw new Error('middleware must not run for health checks');
    };
    app = newApp().withOptions({ grpc: { healthWatchIntervalMs: 100 } }).use(denyAll).addService(protoUserService(loadUserProto()));
    health = createGrpcClient<HealthClient>({ address: await listen(app), service: healthProto });
  });
  afterAll(async () => {
    health.close();
    await stopAll();
  });

  it('Check answers overall and per-service status, bypassing middleware', async () => {
    await expect(health.check({})).resolves.toEqual({ status: 'SERVING' });
    await expect(health.check({ service: 'user.UserService' })).resolves.toEqual({ status: 'SERVING' });
    app.setServingStatus('UserService', 'NOT_SERVING');
    await expect(health.check({ service: 'user.UserService' })).resolves.toEqual({ status: 'NOT_SERVING' });
    await expect(health.check({ service: 'UserService' })).resolves.toEqual({ status: 'NOT_SERVING' });
    app.setServingStatus('UserService', 'SERVING');
  });

  it('Check of an unknown service is NOT_FOUND (standard health protocol)', async () => {
    await expect(health.check({ service: 'nope.Service' })).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
  });

  it('setServingStatus refuses statuses outside SERVING / NOT_SERVING', () => {
    expect(() => app.setServingStatus('', 'MAYBE' as 'SERVING')).toThrow(TypeError);
  });

  it('Watch emits at once, on every change, and again at the interval', async () => {
    const controller = new AbortController();
    const iterator = health.watch({ service: 'user.UserService' }, { signal: controller.signal })[Symbol.asyncIterator]();
    const next = async (): Promise<string> => String(((await iterator.next()).value as Msg).status);
    // Periodic re-emissions may interleave on a busy machine: skip repeats of the previous status (bounded).
    const nextChange = async (previous: string): Promise<string> => {
      for (let i = 0; i < 50; i += 1) {
        const status = await next();
        if (status !== previous) return status;
      }
      return previous;
    };
    expect(await next()).toBe('SERVING');
    app.setServingStatus('user.UserService', 'NOT_SERVING');
    expect(await nextChange('SERVING')).toBe('NOT_SERVING');
    app.setServingStatus('user.UserService', 'SERVING');
    expect(await nextChange('NOT_SERVING')).toBe('SERVING');
    // No change: the periodic re-emission still arrives.
    expect(await next()).toBe('SERVING');
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ code: GrpcStatus.CANCELLED });
  });

  it('Watch of an unknown service reports SERVICE_UNKNOWN', async () => {
    const controller = new AbortController();
    const iterator = health.watch({ service: 'later.Service' }, { signal: controller.signal })[Symbol.asyncIterator]();
    await expect(iterator.next()).resolves.toMatchObject({ value: { status: 'SERVICE_UNKNOWN' } });
    controller.abort();
    await iterator.next().catch(() => undefined);
  });

  it('the spec 4.7 Health service is reachable in process too', async () => {
    const local = createGrpcTestClient<{ Check(r: Msg): Promise<Msg> }>('Health', { app });
    await expect(local.Check({ service: '' })).resolves.toEqual({ status: 'SERVING' });
  });

  it('close() turns health NOT_SERVING and ends Watch streams', async () => {
    const other = newApp().withOptions({ grpc: { healthWatchIntervalMs: 60_000 } });
    const client = createGrpcClient<HealthClient>({ address: await listen(other), service: healthProto });
    const iterator = client.watch({})[Symbol.asyncIterator]();
    await expect(iterator.next()).resolves.toMatchObject({ value: { status: 'SERVING' } });
    const closing = other.close({ timeoutMs: 2000 });
    const rest: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const r = await iterator.next();
      if (r.done === true) break;
      rest.push(String((r.value as Msg).status));
    }
    await closing;
    expect(rest).toEqual(['NOT_SERVING']);
    client.close();
  });
});

describe('server reflection', () => {
  afterAll(stopAll);

  it('lists services and serves their file descriptors when enabled', async () => {
    const app = newApp().addService(protoUserService(loadUserProto())).enableReflection();
    const client = createGrpcClient<{ serverReflectionInfo(r: AsyncIterable<Msg>): AsyncIterable<Msg>; close(): void }>({
      address: await listen(app),
      service: reflectionProto,
    });
    async function* ask(): AsyncGenerator<Msg> {
      yield { listServices: '' };
      yield { fileContainingSymbol: 'user.UserService' };
    }
    const replies: Msg[] = [];
    for await (const reply of client.serverReflectionInfo(ask())) replies.push(reply);
    const services = ((replies[0]?.listServicesResponse as Msg).service as Msg[]).map((s) => s.name);
    expect(services).toEqual(expect.arrayContaining(['user.UserService', 'grpc.health.v1.Health']));
    const files = (replies[1]?.fileDescriptorResponse as Msg).fileDescriptorProto as Buffer[];
    expect(files.length).toBeGreaterThan(0);
    client.close();
  });

  it('describes a descriptor-form service that carries fileDescriptorProtos', async () => {
    const descriptor = userServiceDescriptor();
    const loaded = loadSync(USER_PROTO, { includeDirs: [path.dirname(require.resolve('google-proto-files/package.json'))] });
    descriptor.fileDescriptorProtos = (loaded['user.User'] as { fileDescriptorProtos: Buffer[] }).fileDescriptorProtos;
    const app = newApp().addService(descriptor, {}).enableReflection();
    const client = createGrpcClient<{ serverReflectionInfo(r: AsyncIterable<Msg>): AsyncIterable<Msg>; close(): void }>({
      address: await listen(app),
      service: reflectionProto,
    });
    async function* ask(): AsyncGenerator<Msg> {
      yield { listServices: '' };
    }
    const [reply] = await collect(client.serverReflectionInfo(ask()));
    const services = ((reply?.listServicesResponse as Msg).service as Msg[]).map((s) => s.name);
    expect(services).toEqual(expect.arrayContaining(['user.UserService', 'grpc.health.v1.Health']));
    client.close();
  });

  it('is off by default (UNIMPLEMENTED)', async () => {
    const app = newApp().addService(protoUserService(loadUserProto()));
    const client = createGrpcClient<{ serverReflectionInfo(r: AsyncIterable<Msg>): AsyncIterable<Msg>; close(): void }>({
      address: await listen(app),
      service: reflectionProto,
    });
    async function* ask(): AsyncGenerator<Msg> {
      yield { listServices: '' };
    }
    const consume = async (): Promise<void> => {
      for await (const _reply of client.serverReflectionInfo(ask())) void _reply;
    };
    await expect(consume()).rejects.toMatchObject({ code: GrpcStatus.UNIMPLEMENTED });
    client.close();
  });
});
