/**
 * Request content types: an HTTP/JSON route (the default binding, a
 * `google.api.http` route, a configured route) reads JSON bodies only; any
 * other body is a 415 with fw's error body, and the handler never runs.
 * Connect and gRPC-Web answer 415 in their own error shape to a content type
 * they do not speak. A request without a body needs no content type.
 */
import * as http from 'node:http';
import { ProtocolGateway } from 'fw';
import { UserServiceDescriptor } from '../../generated/user.fw';
import type { GetUserRequest, User } from '../../generated/user';
import { HOST } from './support/clients';
import { startedGateways } from './support/started-gateways';

type Json = Record<string, unknown>;

const user = (id: string, name = `N${id}`): User => ({ id, name, email: `${id}@example.com`, phone: '', address: undefined, roles: [], createdAt: undefined, updatedAt: undefined });

describe('request content types', () => {
  const start = startedGateways();
  let base: string;
  let port: number;
  const handled: string[] = [];

  beforeAll(async () => {
    const gateway = new ProtocolGateway({ enableUDP: false });
    gateway.configureHTTP({ routes: { 'PUT /echo/:id': 'Echo.echo' } });
    gateway.addService(UserServiceDescriptor, {
      getUser: async (r: GetUserRequest) => (handled.push('getUser'), user(r.id)),
      createUser: async (r: { name: string }) => (handled.push('createUser'), user('c1', r.name)),
    });
    gateway.addService('Echo', { echo: async (r: unknown) => (handled.push('echo'), r) });
    port = (await start(gateway)).port;
    base = `http://${HOST}:${port}`;
  });

  beforeEach(() => handled.splice(0));

  const send = (method: string, path: string, headers: Record<string, string>, body?: string | Uint8Array<ArrayBuffer>): Promise<Response> =>
    fetch(base + path, { method, headers, body, signal: AbortSignal.timeout(5000) });

  async function expect415(res: Response): Promise<void> {
    expect(res.status).toBe(415);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE', details: { accepted: ['application/json'] } });
    expect(typeof body['message']).toBe('string');
  }

  it.each([
    ['the default binding', 'POST', '/api/Echo/echo'],
    ['a google.api.http route', 'POST', '/users'],
    ['a configured route', 'PUT', '/api/echo/7'],
  ])('%s refuses text/plain, a form and XML with 415, before the handler runs', async (_name, verb, path) => {
    await expect415(await send(verb, path, { 'content-type': 'text/plain' }, '{"name":"Ada","email":"ada@example.com"}'));
    await expect415(await send(verb, path, { 'content-type': 'application/x-www-form-urlencoded' }, 'name=Ada'));
    await expect415(await send(verb, path, { 'content-type': 'application/xml; charset=utf-8' }, '<name>Ada</name>'));
    await expect415(await send(verb, path, { 'content-type': 'multipart/form-data; boundary=x' }, '--x--'));
    expect(handled).toEqual([]);
  });

  it('fetch with a string body and no headers sends text/plain: refused, not guessed', async () => {
    await expect415(await send('POST', '/api/Echo/echo', {}, JSON.stringify({ a: 1 })));
    expect(handled).toEqual([]);
  });

  it('a body without any Content-Type is refused; a request without a body needs none', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: HOST, port, method: 'POST', path: '/api/Echo/echo', headers: { 'content-length': '7' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{"a":1}');
    });
    expect(status).toBe(415);
    const got = await send('GET', '/users/42', {});
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ id: '42' });
    const empty = await send('POST', '/api/Echo/echo', {});
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({ data: {} });
    expect(handled).toEqual(['getUser', 'echo']);
  });

  it('JSON media types are served: parameters, case, and +json suffixes', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"', 'application/merge-patch+json']) {
      const res = await send('POST', '/api/Echo/echo', { 'content-type': type }, '{"t":1}');
      expect([type, res.status]).toEqual([type, 200]);
      expect(await res.json()).toEqual({ data: { t: 1 } });
    }
    const created = await send('POST', '/users', { 'content-type': 'application/json' }, '{"name":"Ada","email":"ada@example.com"}');
    expect(await created.json()).toMatchObject({ name: 'Ada' });
  });

  it('Connect unary in a content type Connect does not define is Connect\'s 415, not an HTTP/JSON call', async () => {
    for (const type of ['text/plain', 'application/xml']) {
      const res = await send('POST', '/user.UserService/GetUser', { 'content-type': type, 'connect-protocol-version': '1' }, '{"id":"1"}');
      expect(res.status).toBe(415);
      expect(await res.json()).toMatchObject({ code: 'unimplemented' });
    }
    const ok = await send('POST', '/user.UserService/GetUser', { 'content-type': 'application/json', 'connect-protocol-version': '1' }, '{"id":"1"}');
    expect(await ok.json()).toMatchObject({ id: '1' });
    expect(handled).toEqual(['getUser']);
  });

  it('gRPC-Web in a codec it does not speak is a 415', async () => {
    const frame = new Uint8Array([0, 0, 0, 0, 0]);
    for (const type of ['application/grpc-web+xml', 'application/grpc-web-text+thrift']) {
      const res = await send('POST', '/user.UserService/GetUser', { 'content-type': type, 'x-grpc-web': '1' }, frame);
      expect([type, res.status]).toEqual([type, 415]);
      await res.arrayBuffer();
    }
    expect(handled).toEqual([]);
  });

  it('keeps serving on the same connection after a refusal', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const call = (type: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = http.request({ host: HOST, port, method: 'POST', path: '/api/Echo/echo', agent, headers: { 'content-type': type } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end('{"k":"v"}');
      });
    try {
      expect(await call('text/plain')).toBe(415);
      expect(await call('application/json')).toBe(200);
      expect(await call('text/csv')).toBe(415);
      expect(await call('application/json')).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});
