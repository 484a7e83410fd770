/** The example HTTP app (examples/http-app) works end to end — both transports. */
import { createApp } from '../../examples/http-app/app';
import { bothWays, json } from './support/both-ways';

bothWays('example HTTP app', () => createApp(), (client) => {
  const call = (path: string, method = 'GET', body?: unknown) =>
    client().request(path, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: body === undefined ? undefined : { 'content-type': 'application/json' } });

  test('health', async () => {
    expect((await json(await call('/health'))).status).toBe('ok');
  });

  test('users CRUD under /api/v1 and the v2 presentation', async () => {
    const created = await call('/api/v1/users', 'POST', { name: 'Ann', email: 'ann@example.com' });
    expect(created.status).toBe(201);
    const user = await json<{ id: string; name: string }>(created);
    expect(user.name).toBe('Ann');
    expect(await json(await call(`/api/v1/users/${user.id}`))).toMatchObject({ id: user.id, email: 'ann@example.com' });
    expect(await json(await call(`/api/v2/users/${user.id}`))).toMatchObject({ displayName: 'Ann <ann@example.com>' });
    expect(await json(await call(`/api/v1/users/${user.id}`, 'PUT', { name: 'Anna', email: 'anna@example.com' }))).toMatchObject({ name: 'Anna' });
    expect(((await json<unknown[]>(await call('/api/v1/users'))) as { id: string }[]).some((u) => u.id === user.id)).toBe(true);
    expect((await call(`/api/v1/users/${user.id}`, 'DELETE')).status).toBe(204);
    const gone = await call(`/api/v1/users/${user.id}`);
    expect(gone.status).toBe(404);
    expect(await json(gone)).toEqual({ error: `user ${user.id} not found` });
  });

  test('invalid input is a 400 with {error}', async () => {
    const r = await call('/api/v1/users', 'POST', { name: '' });
    expect(r.status).toBe(400);
    expect(await json(r)).toEqual({ error: 'name is required' });
  });

  test('native route, 404 and 405', async () => {
    expect(await json(await call('/hello/bob'))).toEqual({ hello: 'bob' });
    expect(await json(await call('/nope'))).toEqual({ error: 'Not Found', path: '/nope', method: 'GET' });
    const wrong = await call('/api/v1/users', 'PATCH');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, POST');
  });
});
