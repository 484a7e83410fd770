/**
 * In-memory user storage for the example service: ids, unique emails,
 * creation order, paging and search. Storage errors are plain Errors named
 * `ValidationError`, `NotFoundError` or `ConflictError`; the service maps them
 * to gRPC statuses.
 */
import { randomUUID } from 'node:crypto';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import type { Timestamp } from '../../generated/google/protobuf/timestamp';
import type { Address, User } from '../../generated/user';

/** A failure the caller caused, with the gRPC-facing kind in `name`. */
export class StoreError extends Error {
  constructor(
    override readonly name: 'ValidationError' | 'NotFoundError' | 'ConflictError',
    message: string,
  ) {
    super(message);
  }
}

/** Fields a new user is created from. */
export interface NewUser {
  name: string;
  email: string;
  phone: string;
  address: Address | undefined;
  roles: string[];
}

/** Changes to apply; undefined fields are left alone. */
export interface UserChanges {
  name?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  address?: Address | undefined;
  roles?: string[] | undefined;
}

const SORTABLE = new Set(['created_at', 'createdAt', 'updated_at', 'updatedAt', 'name', 'email', 'id']);

/** Milliseconds since the epoch, for ordering; an unset time sorts first. */
function millis(time: Timestamp | undefined): number {
  return time === undefined ? 0 : Number(time.seconds) * 1000 + time.nanos / 1e6;
}

function sortKey(user: User, field: string): string | number {
  switch (field) {
    case 'name':
      return user.name;
    case 'email':
      return user.email;
    case 'id':
      return user.id;
    case 'updated_at':
    case 'updatedAt':
      return millis(user.updatedAt);
    default:
      return millis(user.createdAt);
  }
}

/**
 * Users kept in a Map in insertion order.
 * @example
 * const store = new UserStore();
 * const u = store.create({ name: 'Ada', email: 'ada@example.com', phone: '', address: undefined, roles: [] });
 */
export class UserStore {
  readonly #users = new Map<string, User>();

  /** Creates a user; the email must be unused. */
  create(input: NewUser): User {
    if (input.name.trim() === '') throw new StoreError('ValidationError', 'name is required');
    if (this.findByEmail(input.email) !== undefined) throw new StoreError('ConflictError', `a user with email ${input.email} already exists`);
    const now = timestampNow();
    const user: User = {
      id: randomUUID(),
      name: input.name,
      email: input.email,
      phone: input.phone,
      address: input.address,
      roles: [...input.roles],
      createdAt: now,
      updatedAt: now,
    };
    this.#users.set(user.id, user);
    return user;
  }

  /** The user with `id`. */
  get(id: string): User {
    const user = this.#users.get(id);
    if (user === undefined) throw new StoreError('NotFoundError', `user ${id} not found`);
    return user;
  }

  /** Applies `changes`; a new email must be unused by anyone else. */
  update(id: string, changes: UserChanges): User {
    const user = this.get(id);
    if (changes.email !== undefined && changes.email !== user.email) {
      const other = this.findByEmail(changes.email);
      if (other !== undefined && other.id !== id) throw new StoreError('ConflictError', `a user with email ${changes.email} already exists`);
    }
    if (changes.name !== undefined && changes.name.trim() === '') throw new StoreError('ValidationError', 'name must not be empty');
    const next: User = {
      ...user,
      name: changes.name ?? user.name,
      email: changes.email ?? user.email,
      phone: changes.phone ?? user.phone,
      address: changes.address ?? user.address,
      roles: changes.roles !== undefined && changes.roles.length > 0 ? [...changes.roles] : user.roles,
      updatedAt: timestampNow(),
    };
    this.#users.set(id, next);
    return next;
  }

  /** Deletes the user with `id`. */
  delete(id: string): void {
    if (!this.#users.delete(id)) throw new StoreError('NotFoundError', `user ${id} not found`);
  }

  /** One batch of users sorted by `sortBy`, starting at `offset`. */
  page(offset: number, limit: number, sortBy: string, sortOrder: string): User[] {
    const field = SORTABLE.has(sortBy) ? sortBy : 'created_at';
    const all = [...this.#users.values()];
    // Stable sort: equal keys keep creation (insertion) order.
    all.sort((a, b) => {
      const ka = sortKey(a, field);
      const kb = sortKey(b, field);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    if (sortOrder.toLowerCase() === 'desc') all.reverse();
    return all.slice(offset, offset + limit);
  }

  /** Users whose `fields` contain `query`, case-insensitively. */
  search(query: string, fields: readonly string[], limit: number): User[] {
    const needle = query.toLowerCase();
    const keys = fields.length > 0 ? fields : ['name', 'email'];
    const found: User[] = [];
    for (const user of this.#users.values()) {
      if (found.length >= limit) break;
      const hit = keys.some((k) => {
        const value = k === 'name' ? user.name : k === 'email' ? user.email : k === 'phone' ? user.phone : k === 'id' ? user.id : '';
        return value.toLowerCase().includes(needle);
      });
      if (hit) found.push(user);
    }
    return found;
  }

  /** Number of stored users. */
  get size(): number {
    return this.#users.size;
  }

  private findByEmail(email: string): User | undefined {
    const wanted = email.toLowerCase();
    for (const user of this.#users.values()) if (user.email.toLowerCase() === wanted) return user;
    return undefined;
  }
}
