/**
 * Authentication per spec part 5 over every protocol: jwt (HS256, and an
 * asymmetric key), apikey, oauth against a local OIDC issuer on loopback;
 * per-protocol rules; service-level required/methods/authorize; method-level
 * `authentication: false`; the example policy; and every kind of bad token
 * refused with 401 / UNAUTHENTICATED.
 */
import http from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { ProtocolGateway, type AuthenticationConfig, type ServiceDefinition } from 'fw';
import { allDrivers, httpDriver, grpcDriver, tcpDriver, udpDriver, type Driver } from './support/drivers';
import { HOST } from './support/clients';

const SECRET = 'test-secret-that-is-long-enough-for-hs256';
const enc = new TextEncoder();

function hs256(claims: Record<string, unknown>, secret = SECRET, exp = '5m', audience = 'fw'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setAudience(audience).setExpirationTime(exp).sign(enc.encode(secret));
}

function b64(v: unknown): string {
  return Buffer.from(JSON.stringify(v)).toString('base64url');
}

const METHODS = ['getUser', 'updateUser', 'deleteUser', 'publicInfo'];

function usersService(): ServiceDefinition {
  return {
    name: 'Users',
    authentication: {
      required: true,
      authorize: (user: Record<string, unknown>, method: string, request: unknown) => {
        const roles = (user.roles as string[] | undefined) ?? [];
        if (method === 'deleteUser') return roles.includes('admin');
        if (method === 'updateUser') return roles.includes('admin') || user.sub === (request as { id?: string }).id;
        return true;
      },
    },
    methods: {
      getUser: { handler: async (req: { id: string }, ctx: { authentication?: { provider: string; user: Record<string, unknown> } }) => ({ id: req.id, by: ctx.authentication?.provider, sub: ctx.authentication?.user.sub ?? null }) },
      updateUser: { handler: async (req: { id: string }) => ({ id: req.id, updated: true }) },
      deleteUser: { handler: async () => ({ success: true }) },
      publicInfo: { authentication: false, handler: async () => ({ public: true }) },
    },
  };
}

describe('gateway authentication', () => {
  let gateway: ProtocolGateway;
  let drivers: Driver[];
  let issuer: http.Server;
  let issuerUrl: string;
  let oauthToken: (claims: Record<string, unknown>, audience?: string) => Promise<string>;

  beforeAll(async () => {
    // A local OIDC issuer: discovery document + JWKS, on loopback.
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    issuer = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: issuerUrl, jwks_uri: `${issuerUrl}/jwks` }));
      else if (req.url === '/jwks') res.end(JSON.stringify({ keys: [jwk] }));
      else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((r) => issuer.listen(0, HOST, () => r()));
    issuerUrl = `http://${HOST}:${(issuer.address() as { port: number }).port}`;
    oauthToken = (claims, audience = 'api') =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuerUrl).setAudience(audience).setIssuedAt().setExpirationTime('5m').sign(privateKey);

    gateway = new ProtocolGateway({});
    const config: AuthenticationConfig = {
      providers: {
        jwt: { secret: SECRET, algorithms: ['HS256'], audience: 'fw' },
        apikey: { header: 'X-API-Key', validate: (key) => (key === 'key-admin' ? { sub: 'svc', roles: ['admin'] } : key === 'key-1') },
        oauth: { issuer: issuerUrl, audience: 'api' },
      },
      rules: { http: ['jwt', 'apikey', 'oauth'], websocket: ['jwt', 'apikey', 'oauth'], grpc: ['jwt', 'oauth', 'apikey'], udp: ['apikey', 'jwt'], tcp: ['apikey', 'jwt'] },
    };
    gateway.configureAuthentication(config);
    gateway.addService('Users', usersService());
    const port = (await gateway.listen(0, HOST)).port as number;
    drivers = await allDrivers(port, 'Users', METHODS);
  });

  afterAll(async () => {
    for (const d of drivers ?? []) d.close();
    await gateway?.close();
    await new Promise((r) => issuer?.close(r));
  });

  const each = (name: string, fn: (d: Driver) => Promise<void>): void => {
    for (const protocol of ['http', 'websocket', 'grpc', 'udp', 'tcp'] as const) {
      it(`${name} [${protocol}]`, async () => fn(drivers.find((x) => x.protocol === protocol) as Driver));
    }
  };

  const expectUnauthenticated = (out: Awaited<ReturnType<Driver['call']>>, d: Driver): void => {
    expect(out).toMatchObject({ ok: false, code: 'UNAUTHENTICATED' });
    if (d.protocol === 'http') expect(out).toMatchObject({ httpStatus: 401 });
    if (d.protocol === 'grpc') expect(out).toMatchObject({ grpcStatus: 16 });
  };

  each('accepts a valid HS256 JWT and exposes the principal', async (d) => {
    const out = await d.call('Users', 'getUser', { id: '7' }, { token: await hs256({ sub: 'u7' }) });
    expect(out).toMatchObject({ ok: true, data: { id: '7', by: 'jwt', sub: 'u7' } });
  });

  each('refuses a call without credentials', async (d) => {
    expectUnauthenticated(await d.call('Users', 'getUser', { id: '7' }), d);
  });

  each('lets a method with authentication: false through', async (d) => {
    expect(await d.call('Users', 'publicInfo', {})).toMatchObject({ ok: true, data: { public: true } });
  });

  each('refuses unsigned, alg:none, wrong-key, expired, wrong-audience and garbage tokens', async (d) => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'u1', aud: 'fw', iat: now, exp: now + 300 };
    const bad = [
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
      `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`,
      await hs256({ sub: 'u1' }, 'another-secret-of-sufficient-length!!'),
      await new SignJWT({ sub: 'u1' }).setProtectedHeader({ alg: 'HS256' }).setAudience('fw').setIssuedAt(now - 600).setExpirationTime(now - 300).sign(enc.encode(SECRET)),
      await hs256({ sub: 'u1' }, SECRET, '5m', 'someone-else'),
      'not-a-token',
    ];
    for (const token of bad) expectUnauthenticated(await d.call('Users', 'getUser', { id: '1' }, { token }), d);
  });

  each('applies the example policy: deleteUser admin only, updateUser admin or self', async (d) => {
    const user = await hs256({ sub: 'u1', roles: ['user'] });
    const admin = await hs256({ sub: 'root', roles: ['admin'] });
    const denied = await d.call('Users', 'deleteUser', { id: 'u2' }, { token: user });
    expect(denied).toMatchObject({ ok: false, code: 'PERMISSION_DENIED' });
    if (d.protocol === 'http') expect(denied).toMatchObject({ httpStatus: 403 });
    if (d.protocol === 'grpc') expect(denied).toMatchObject({ grpcStatus: 7 });
    expect(await d.call('Users', 'deleteUser', { id: 'u2' }, { token: admin })).toMatchObject({ ok: true, data: { success: true } });
    expect(await d.call('Users', 'updateUser', { id: 'u1' }, { token: user })).toMatchObject({ ok: true });
    expect(await d.call('Users', 'updateUser', { id: 'u2' }, { token: user })).toMatchObject({ ok: false, code: 'PERMISSION_DENIED' });
    expect(await d.call('Users', 'updateUser', { id: 'u2' }, { token: admin })).toMatchObject({ ok: true });
  });

  each('accepts API keys through validate', async (d) => {
    if (d.protocol === 'grpc' || d.protocol === 'http') {
      expect(await d.call('Users', 'getUser', { id: '1' }, { apiKey: 'key-1' })).toMatchObject({ ok: true, data: { by: 'apikey' } });
    } else {
      expect(await d.call('Users', 'getUser', { id: '1' }, { apiKey: 'key-1' })).toMatchObject({ ok: true, data: { by: 'apikey' } });
      expect(await d.call('Users', 'getUser', { id: '1' }, { token: 'key-1' })).toMatchObject({ ok: true, data: { by: 'apikey' } });
    }
    expect(await d.call('Users', 'deleteUser', { id: '1' }, { apiKey: 'key-admin' })).toMatchObject({ ok: true });
    expectUnauthenticated(await d.call('Users', 'getUser', { id: '1' }, { apiKey: 'wrong' }), d);
  });

  it('verifies OAuth access tokens through OIDC discovery + JWKS (http, websocket, grpc)', async () => {
    for (const d of drivers.filter((x) => ['http', 'websocket', 'grpc'].includes(x.protocol))) {
      const good = await d.call('Users', 'getUser', { id: '1' }, { token: await oauthToken({ sub: 'oidc-user' }) });
      expect(good).toMatchObject({ ok: true, data: { by: 'oauth', sub: 'oidc-user' } });
      expectUnauthenticated(await d.call('Users', 'getUser', { id: '1' }, { token: await oauthToken({ sub: 'x' }, 'other-audience') }), d);
    }
  });

  it('applies per-protocol rules: udp and tcp do not accept oauth tokens here', async () => {
    for (const d of drivers.filter((x) => ['udp', 'tcp'].includes(x.protocol))) {
      expectUnauthenticated(await d.call('Users', 'getUser', { id: '1' }, { token: await oauthToken({ sub: 'oidc-user' }) }), d);
    }
  });
});

describe('gateway authentication with an asymmetric JWT key and the spec example rules', () => {
  let gateway: ProtocolGateway;
  let port: number;
  let sign: (claims: Record<string, unknown>) => Promise<string>;
  let foreign: (claims: Record<string, unknown>) => Promise<string>;

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const other = await generateKeyPair('ES256');
    sign = (c) => new SignJWT(c).setProtectedHeader({ alg: 'ES256' }).setExpirationTime('5m').sign(privateKey);
    foreign = (c) => new SignJWT(c).setProtectedHeader({ alg: 'ES256' }).setExpirationTime('5m').sign(other.privateKey);
    gateway = new ProtocolGateway({});
    gateway.configureAuthentication({
      providers: { jwt: { publicKey: publicKey as never, algorithms: ['ES256'] }, apikey: { validate: (k) => k === 'udp-key' } },
      rules: { http: ['jwt', 'apikey'], websocket: ['jwt', 'apikey'], grpc: ['jwt'], udp: ['apikey'], tcp: ['apikey'] },
    });
    gateway.addService('Users', usersService());
    port = (await gateway.listen(0, HOST)).port as number;
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('verifies ES256 tokens and refuses ones signed by another key', async () => {
    const d = httpDriver(port);
    expect(await d.call('Users', 'getUser', { id: '1' }, { token: await sign({ sub: 'a' }) })).toMatchObject({ ok: true, data: { by: 'jwt' } });
    expect(await d.call('Users', 'getUser', { id: '1' }, { token: await foreign({ sub: 'a' }) })).toMatchObject({ ok: false, httpStatus: 401 });
    const g = grpcDriver(port, 'Users', METHODS);
    expect(await g.call('Users', 'getUser', { id: '1' }, { token: await sign({ sub: 'a' }) })).toMatchObject({ ok: true });
    expect(await g.call('Users', 'getUser', { id: '1' }, { apiKey: 'udp-key' })).toMatchObject({ ok: false, grpcStatus: 16 });
    g.close();
  });

  it('udp and tcp take API keys only', async () => {
    const u = udpDriver(port);
    expect(await u.call('Users', 'getUser', { id: '1' }, { apiKey: 'udp-key' })).toMatchObject({ ok: true, data: { by: 'apikey' } });
    expect(await u.call('Users', 'getUser', { id: '1' }, { token: await sign({ sub: 'a' }) })).toMatchObject({ ok: false, code: 'UNAUTHENTICATED' });
    const t = await tcpDriver(port);
    expect(await t.call('Users', 'getUser', { id: '1' }, { apiKey: 'udp-key' })).toMatchObject({ ok: true });
    t.close();
  });

  it('narrows providers per service with authentication.methods', async () => {
    gateway.addService('KeysOnly', { name: 'KeysOnly', authentication: { methods: ['apikey'] }, methods: { ping: { handler: async () => 'pong' } } });
    const d = httpDriver(port);
    expect(await d.call('KeysOnly', 'ping', {}, { apiKey: 'udp-key' })).toMatchObject({ ok: true, data: 'pong' });
    expect(await d.call('KeysOnly', 'ping', {}, { token: await sign({ sub: 'a' }) })).toMatchObject({ ok: false, httpStatus: 401 });
  });

  it('rejects configuration naming unknown providers or alg none', () => {
    const g = new ProtocolGateway({});
    expect(() => g.configureAuthentication({ providers: { jwt: { secret: 'x' } }, rules: { http: ['oauth'] } })).toThrow(/not configured/);
    expect(() => g.configureAuthentication({ providers: { jwt: { secret: 'x', algorithms: ['none'] } } })).toThrow(/none/);
    expect(() => g.configureAuthentication({ providers: { jwt: {} } })).toThrow(/secret or a publicKey/);
  });
});
