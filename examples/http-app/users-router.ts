/**
 * Users CRUD over an in-memory map, as a Router per API version: v1 returns
 * users as stored, v2 adds a display name. Mounted at /api/v1 and /api/v2.
 */
import { Router, type FwRequest, type RouteHandler } from 'fw';
import { json } from 'fw/middleware';

export interface User {
  id: string;
  name: string;
  email: string;
  createdAt: string;
}

/** The store both versions share. */
export class UserStore {
  readonly #users = new Map<string, User>();
  #next = 1;

  list(): User[] {
    return [...this.#users.values()];
  }

  get(id: string): User | undefined {
    return this.#users.get(id);
  }

  create(name: string, email: string): User {
    const user: User = { id: String(this.#next++), name, email, createdAt: new Date().toISOString() };
    this.#users.set(user.id, user);
    return user;
  }

  update(id: string, changes: Partial<Pick<User, 'name' | 'email'>>): User | undefined {
    const user = this.#users.get(id);
    if (user === undefined) return undefined;
    const updated = { ...user, ...changes };
    this.#users.set(id, updated);
    return updated;
  }

  delete(id: string): boolean {
    return this.#users.delete(id);
  }
}

/** An error the framework turns into `{error}` with this status. */
export class HttpError extends Error {
  constructor(readonly statusCode: number, message: string) {
    super(message);
  }
}

function validUser(req: FwRequest): { name: string; email: string } {
  const body = req.body as { name?: unknown; email?: unknown } | undefined;
  if (typeof body?.name !== 'string' || body.name === '') throw new HttpError(400, 'name is required');
  if (typeof body.email !== 'string' || !body.email.includes('@')) throw new HttpError(400, 'a valid email is required');
  return { name: body.name, email: body.email };
}

function found(store: UserStore, id: string | undefined): User {
  const user = id === undefined ? undefined : store.get(id);
  if (user === undefined) throw new HttpError(404, `user ${String(id)} not found`);
  return user;
}

/** The users resource for one API version; `present` shapes what it returns. */
export function usersRouter(store: UserStore, present: (user: User) => object): Router {
  const router = new Router();
  const list: RouteHandler = (req, res) => {
    res.json(store.list().map(present));
  };
  router.get('/users', list);
  router.get('/users/:id', (req, res) => res.json(present(found(store, req.params.id))));
  router.post('/users', json(), (req, res) => {
    const { name, email } = validUser(req);
    res.status(201).json(present(store.create(name, email)));
  });
  router.put('/users/:id', json(), (req, res) => {
    found(store, req.params.id);
    res.json(present(store.update(req.params.id!, validUser(req))!));
  });
  router.delete('/users/:id', (req, res) => {
    found(store, req.params.id);
    store.delete(req.params.id!);
    res.status(204).send();
  });
  return router;
}
