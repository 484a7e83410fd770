/**
 * The gateway the browser-client tests call (Node and headless Chromium):
 * the generated user service (proto/user.proto) with handlers that show
 * what reached the server — a `slow` GetUser that reports whether its
 * signal aborted, a missing user with details, metadata seen — the Connect
 * tests' other handlers (streams, a stream that fails midway), and a JWT rule
 * on DeleteUser. HTTP CORS is on for the page's origin when given, so fetch
 * calls from a page work.
 */
import { SignJWT } from 'jose';
import { ProtocolGateway, ServiceError, type RequestContext } from 'fw';
import type { GetUserRequest, User } from '../../../generated/user';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { otherUserHandlers, user } from '../../interop/gateway/support/connect-gateway';

const JWT_SECRET = 'browser-client-test-secret';

/** A JWT the gateway accepts (HS256, subject `ada`). */
export function mintToken(subject = 'ada'): Promise<string> {
  return new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(subject).setExpirationTime('10m').sign(new TextEncoder().encode(JWT_SECRET));
}


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
    ...otherUserHandlers,
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
