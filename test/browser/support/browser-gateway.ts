/**
 * The gateway the browser-client tests call (Node and headless Chromium):
 * the generated user service (proto/user.proto) with handlers that show
 * what reached the server — a `slow` GetUser that reports whether its
 * signal aborted, a missing user with details, a stream that fails midway,
 * metadata seen — and a JWT rule on DeleteUser. HTTP
 * CORS is on for the page's origin, so fetch calls from a page work.
 */
import { SignJWT } from 'jose';
import { ProtocolGateway, ServiceError, type RequestContext } from 'fw';
import type { ChatMessage, CreateUserRequest, GetUserRequest, ListUsersRequest, User } from '../../../generated/user';
import { UserServiceDescriptor } from '../../../generated/user.fw';

const JWT_SECRET = 'browser-client-test-secret';

/** A JWT the gateway accepts (HS256, subject `ada`). */
export function mintToken(subject = 'ada'): Promise<string> {
  return new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(subject).setExpirationTime('10m').sign(new TextEncoder().encode(JWT_SECRET));
}

const user = (id: string, name: string, email = `${id}@example.com`): User => ({ id, name, email, phone: '', address: undefined, roles: [], createdAt: undefined, updatedAt: undefined });

/** What the test can ask about slow calls: each `slow` call's fate, in arrival order. */
export interface SlowCalls {
  /** Resolves once `n` slow calls have started. */
  started(n: number): Promise<void>;
  /** Whether slow call `i` (0-based) saw its signal abort (false when it ran 5 s to the end). */
  aborted(i: number): Promise<boolean>;
}

/** Starts the gateway on loopback (port 0, or `port` to come back on the same one). */
export async function startBrowserGateway(options: { port?: number; corsOrigin?: string } = {}): Promise<{ gateway: ProtocolGateway; port: number; slow: SlowCalls }> {
  const outcomes: Promise<boolean>[] = [];
  const waiters: (() => void)[] = [];
  const handlers = {
    async getUser(req: GetUserRequest, ctx: RequestContext): Promise<User> {
      if (req.id === 'missing') throw new ServiceError('USER_NOT_FOUND', 'User missing not found', 404, { id: 'missing' });
      if (req.id === 'meta') return user('meta', String(ctx.call.requestMetadata.get('x-custom')[0] ?? ''));
      if (req.id === 'slow') {
        const aborted = new Promise<boolean>((resolve) => {
          if (ctx.signal.aborted) return resolve(true);
          const timer = setTimeout(() => resolve(false), 5000);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        outcomes.push(aborted);
        for (const w of waiters.splice(0)) w();
        await aborted;
        return user('slow', 'late');
      }
      return user(req.id, 'Ada');
    },
    async createUser(req: CreateUserRequest): Promise<User> {
      return user('new', req.name, req.email);
    },
    async deleteUser(_req: unknown, ctx: RequestContext): Promise<{ success: boolean }> {
      return { success: ctx.authentication?.user !== undefined };
    },
    async *listUsers(req: ListUsersRequest): AsyncIterable<User> {
      for (let i = 1; i <= req.limit; i++) yield user(`u${i}`, `User ${i}`);
      if (req.page === 99) throw new ServiceError('PAGE_GONE', 'Page 99 is gone', 409, { page: 99 });
    },
    async createMultipleUsers(reqs: AsyncIterable<CreateUserRequest>): Promise<{ count: number; users: User[]; errors: string[] }> {
      const users: User[] = [];
      for await (const r of reqs) users.push(user(`b${users.length + 1}`, r.name, r.email));
      return { count: users.length, users, errors: [] };
    },
    async *chatWithUsers(reqs: AsyncIterable<ChatMessage>): AsyncIterable<ChatMessage> {
      for await (const m of reqs) yield { userId: 'echo', message: `${m.userId}: ${m.message}`, timestamp: undefined };
    },
  };
  const gateway = new ProtocolGateway({ enableUDP: false });
  gateway.addService(UserServiceDescriptor, handlers, { methods: { deleteUser: { authentication: true } } });
  gateway.configureAuthentication({ providers: { jwt: { secret: JWT_SECRET, algorithms: ['HS256'] } } });
  if (options.corsOrigin !== undefined) gateway.configureHTTP({ enableCORS: true, cors: { origin: options.corsOrigin } });
  const port = (await gateway.listen(options.port ?? 0, '127.0.0.1')).port as number;
  const slow: SlowCalls = {
    started: async (n) => {
      while (outcomes.length < n) await new Promise<void>((r) => waiters.push(r));
    },
    aborted: (i) => outcomes[i] ?? Promise.resolve(false),
  };
  return { gateway, port, slow };
}
