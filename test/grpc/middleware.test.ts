/**
 * gRPC middleware (spec 4.6): onion order, call.method / metadata / user /
 * getPeer, the error-middleware convention of 7.1, the auth convention of
 * 5.2, and RateLimiter → RESOURCE_EXHAUSTED — over loopback and through the
 * in-process test client alike.
 */
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcError, GrpcStatus, RateLimiter, ServiceError, ServiceErrors, type GrpcCall, type GrpcMiddleware } from 'fw/grpc';
import { createGrpcTestClient } from 'fw/testing';
import { collect, listen, newApp, stopAll } from './fixtures/servers';

type Msg = Record<string, unknown>;
type Opts = { metadata?: Record<string, string> };
interface Client {
  whoAmI(r: Msg, o?: Opts): Promise<Msg>;
  getPublicInfo(r: Msg, o?: Opts): Promise<Msg>;
  fail(r: Msg, o?: Opts): Promise<Msg>;
  ticks(r: Msg, o?: Opts): AsyncIterable<Msg>;
  close(): void;
}

class ValidationError extends Error {
  override name = 'ValidationError';
}
class DatabaseError extends Error {
  override name = 'DatabaseError';
}

// Spec 7.1 error middleware, as an application writes it.
const errorMiddleware: GrpcMiddleware = async (call, next) => {
  try {
    return await next();
  } catch (error) {
    if (error instanceof GrpcError) throw error;
    if ((error as Error).name === 'ValidationError') throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, (error as Error).message);
    if ((error as Error).name === 'DatabaseError') throw new GrpcError(GrpcStatus.UNAVAILABLE, 'Service temporarily unavailable');
    throw new GrpcError(GrpcStatus.INTERNAL, 'Internal server error');
  }
};

// Spec 5.2 auth middleware, as an application writes it.
const publicMethods = ['GetPublicInfo', 'HealthCheck'];
const tokens: Record<string, { id: string; role: string }> = { 'good-token': { id: 'u1', role: 'admin' } };
const authMiddleware: GrpcMiddleware = async (call, next) => {
  if (publicMethods.includes(call.method)) return next();
  const [header] = call.metadata.get('authorization');
  if (header === undefined) throw new GrpcError(GrpcStatus.UNAUTHENTICATED, 'Missing authorization token');
  const token = String(header).replace(/^Bearer /, '');
  const user = tokens[token];
  if (user === undefined) throw new GrpcError(GrpcStatus.UNAUTHENTICATED, 'Invalid or expired token');
  call.user = user;
  return next();
};

describe('gRPC middleware', () => {
  const order: string[] = [];
  const limiter = new RateLimiter<GrpcCall>({ windowMs: 60_000, max: 3, keyGenerator: (call) => `${call.getPeer().split(':')[0]}:${String(call.metadata.get('x-client')[0])}` });
  let client: Client;
  let failWith: () => Error = () => new Error('boom');

  beforeAll(async () => {
    const app = newApp()
      .use(async (call, next) => {
        order.push(`outer>${call.method}`);
        const result = await next();
        order.push('outer<');
        return result;
      })
      .use(errorMiddleware)
      .use(async (call, next) => {
        if (call.metadata.get('x-client').length > 0 && !limiter.checkLimit(call)) throw new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, 'Rate limit exceeded');
        return next();
      })
      .use(authMiddleware)
      .use(async (_call, next) => {
        order.push('inner>');
        const result = await next();
        order.push('inner<');
        return result;
      })
      .addService({
        name: 'demo.Secure',
        methods: {
          WhoAmI: {
            handler: async (_request: Msg, context) => ({
              user: context.authentication?.user,
              peerSeen: true,
            }),
          },
          GetPublicInfo: { handler: async () => ({ info: 'public' }) },
          Fail: { handler: async () => { throw failWith(); } },
          Ticks: { streaming: 'server', async *handler() { yield { n: 1 }; yield { n: 2 }; } },
        },
      });
    // A middleware that captures call details for the assertions below.
    app.use(async (call, next) => {
      lastCall = { method: call.method, service: call.service, peer: call.getPeer(), map: call.metadata.getMap(), user: call.user };
      return next();
    });
    client = createGrpcClient<Client>({ address: await listen(app), service: { name: 'demo.Secure', methods: { WhoAmI: 'none', GetPublicInfo: 'none', Fail: 'none', Ticks: 'server' } } });
  });
  let lastCall: Msg = {};
  const auth = { metadata: { authorization: 'Bearer good-token' } };

  afterAll(async () => {
    client.close();
    await stopAll();
  });

  it('runs middleware in registration order, onion style, and exposes call details', async () => {
    order.length = 0;
    const result = await client.whoAmI({}, { metadata: { authorization: 'Bearer good-token', 'x-trace': 't1' } });
    expect(order).toEqual(['outer>WhoAmI', 'inner>', 'inner<', 'outer<']);
    expect(result).toEqual({ user: { id: 'u1', role: 'admin' }, peerSeen: true });
    expect(lastCall).toMatchObject({ method: 'WhoAmI', service: 'demo.Secure', user: { id: 'u1', role: 'admin' }, map: { 'x-trace': 't1', authorization: 'Bearer good-token' } });
    expect(String(lastCall.peer)).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('auth convention (5.2): public methods skip it, missing or bad tokens are UNAUTHENTICATED', async () => {
    await expect(client.getPublicInfo({})).resolves.toEqual({ info: 'public' });
    await expect(client.whoAmI({})).rejects.toMatchObject({ code: GrpcStatus.UNAUTHENTICATED, message: 'Missing authorization token' });
    await expect(client.whoAmI({}, { metadata: { authorization: 'Bearer nope' } })).rejects.toMatchObject({ code: GrpcStatus.UNAUTHENTICATED, message: 'Invalid or expired token' });
    // `Bearer ` is optional: the raw token works too.
    await expect(client.whoAmI({}, { metadata: { authorization: 'good-token' } })).resolves.toMatchObject({ user: { id: 'u1' } });
  });

  it('error convention (7.1): ValidationError → INVALID_ARGUMENT, DatabaseError → UNAVAILABLE, other → INTERNAL generic', async () => {
    failWith = () => new ValidationError('email is invalid');
    await expect(client.fail({}, auth)).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT, message: 'email is invalid' });
    failWith = () => new DatabaseError('connection refused at 10.0.0.3');
    await expect(client.fail({}, auth)).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE, message: 'Service temporarily unavailable' });
    failWith = () => new Error('secret stack detail');
    await expect(client.fail({}, auth)).rejects.toMatchObject({ code: GrpcStatus.INTERNAL, message: 'Internal server error' });
    failWith = () => new GrpcError(GrpcStatus.NOT_FOUND, 'gone');
    await expect(client.fail({}, auth)).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND, message: 'gone' });
  });

  it('a ServiceError keeps its message and maps statusCode through the HTTP→gRPC table, a catalogued one through the catalogue', async () => {
    const app = newApp().addService({ name: 'Svc', methods: {
      Find: { handler: async () => { throw new ServiceError('USER_NOT_FOUND', 'No such user', 404); } },
      Big: { handler: async () => { throw ServiceErrors.tooLarge('Upload', 10); } },
    } });
    const svc = createGrpcClient<{ find(r: Msg): Promise<Msg>; big(r: Msg): Promise<Msg>; close(): void }>({ address: await listen(app), service: { name: 'Svc', methods: { Find: 'none', Big: 'none' } } });
    await expect(svc.find({})).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND, message: 'No such user', metadata: { 'x-error-code': 'USER_NOT_FOUND' } });
    await expect(svc.big({})).rejects.toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED, metadata: { 'x-error-code': 'PAYLOAD_TOO_LARGE' } });
    await expect(createGrpcTestClient<{ Find(r: Msg): Promise<Msg> }>('Svc').Find({})).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    svc.close();
  });

  it('middleware wraps streaming calls too', async () => {
    order.length = 0;
    await expect(collect(client.ticks({}, auth))).resolves.toEqual([{ n: 1 }, { n: 2 }]);
    expect(order[0]).toBe('outer>Ticks');
    await expect(collect(client.ticks({}))).rejects.toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
  });

  it('RateLimiter.checkLimit turns the call over the limit into RESOURCE_EXHAUSTED', async () => {
    const opts = { metadata: { ...auth.metadata, 'x-client': 'limited' } };
    for (let i = 0; i < 3; i += 1) await expect(client.whoAmI({}, opts)).resolves.toBeDefined();
    await expect(client.whoAmI({}, opts)).rejects.toMatchObject({ code: GrpcStatus.RESOURCE_EXHAUSTED, message: 'Rate limit exceeded' });
    // Another key has its own window.
    await expect(client.whoAmI({}, { metadata: { ...auth.metadata, 'x-client': 'other' } })).resolves.toBeDefined();
  });

  it('the in-process test client goes through the same middleware and error translation', async () => {
    const local = createGrpcTestClient<{ WhoAmI(r: Msg, o?: Opts): Promise<Msg>; Fail(r: Msg, o?: Opts): Promise<Msg> }>('demo.Secure');
    await expect(local.WhoAmI({})).rejects.toMatchObject({ code: GrpcStatus.UNAUTHENTICATED });
    await expect(local.WhoAmI({}, auth)).resolves.toMatchObject({ user: { id: 'u1' } });
    failWith = () => new DatabaseError('down');
    await expect(local.Fail({}, auth)).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
  });

  it('RateLimiter keys by peer address by default and validates its options', () => {
    const byPeer = new RateLimiter({ windowMs: 1000, max: 1 });
    const a = { getPeer: () => '10.0.0.1:5000' };
    const b = { getPeer: () => '10.0.0.1:6000' };
    const c = { getPeer: () => '10.0.0.2:5000' };
    expect(byPeer.checkLimit(a)).toBe(true);
    expect(byPeer.checkLimit(b)).toBe(false);
    expect(byPeer.checkLimit(c)).toBe(true);
    expect(() => new RateLimiter({ windowMs: 0, max: 1 })).toThrow(RangeError);
    expect(() => new RateLimiter({ windowMs: 10, max: -1 })).toThrow(RangeError);
  });

  it('app.use refuses a non-function', () => {
    expect(() => newApp().use('nope' as unknown as GrpcMiddleware)).toThrow(TypeError);
  });
});
