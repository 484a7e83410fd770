/**
 * The gateway the Connect-ES interop tests call: the generated user service
 * (proto/user.proto) with handlers that expose what the transport did —
 * headers and trace id seen, a failing call, a slow call that watches its
 * abort signal, streams in every direction — plus an API-key rule on
 * DeleteUser. `userServiceSchema` builds the Connect-ES service descriptor
 * from the generated descriptor's embedded FileDescriptorProtos, exactly as
 * a browser page can.
 */
import { create, createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import type { DescService } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { ProtocolGateway, ServiceError, type RequestContext } from 'fw';
import type { ChatMessage, CreateUserRequest, GetUserRequest, ListUsersRequest, User } from '../../../../generated/user';
import { UserServiceDescriptor } from '../../../../generated/user.fw';

/** The Connect-ES descriptor of user.UserService. */
export function userServiceSchema(): DescService {
  const files = (UserServiceDescriptor.fileDescriptorProtos ?? []).map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
  const service = registry.getService('user.UserService');
  if (service === undefined) throw new Error('user.UserService missing from the embedded descriptors');
  return service;
}

/** A user with the given id and name, the other fields empty. */
export const user = (id: string, name: string, email = `${id}@example.com`): User => ({ id, name, email, phone: '', address: undefined, roles: [], createdAt: undefined, updatedAt: undefined });

/**
 * The handlers other than GetUser (which each test gateway writes for its own
 * probes): streams in every direction, a stream that fails at page 99, and a
 * DeleteUser that answers whoever passed authentication.
 */
export const otherUserHandlers = {
  async createUser(req: CreateUserRequest): Promise<User> {
    return user('new', req.name, req.email);
  },
  async deleteUser(): Promise<{ success: boolean }> {
    return { success: true };
  },
  async *listUsers(req: ListUsersRequest): AsyncIterable<User> {
    for (let i = 1; i <= req.limit; i++) yield user(`u${i}`, `User ${i}`);
    if (req.page === 99) throw new ServiceError('PAGE_GONE', 'Page 99 is gone', 409);
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

/** What became of the last `slow` GetUser call: its signal aborted, it was never started (the deadline passed first), or it ran 5 s to the end. */
export type SlowOutcome = 'aborted' | 'not-started' | 'finished';

/** Starts the gateway on loopback; `slow()` tells (and forgets) what became of the last `slow` GetUser call. */
export async function startConnectGateway(configure?: (g: ProtocolGateway) => void): Promise<{ gateway: ProtocolGateway; port: number; slow: () => Promise<SlowOutcome> }> {
  let slowAborted: Promise<boolean> | undefined;
  const handlers = {
    async getUser(req: GetUserRequest, ctx: RequestContext): Promise<User> {
      if (req.id === 'missing') throw new ServiceError('USER_NOT_FOUND', 'User missing not found', 404, { id: 'missing' });
      if (req.id === 'meta') {
        ctx.call.setHeader('x-reply', 'from-handler');
        ctx.call.setTrailer('x-done', 'yes');
        return user('meta', ctx.headers['x-custom'] ?? '', `${ctx.tracing.traceId}@trace`);
      }
      if (req.id === 'verb') return user('verb', String(ctx.metadata.method));
      if (req.id === 'protocol') return user('protocol', `${ctx.protocol}:${String(ctx.metadata.rpc)}:${String(ctx.metadata.codec)}`);
      if (req.id === 'slow') {
        slowAborted = new Promise<boolean>((resolve) => {
          if (ctx.signal.aborted) {
            resolve(true);
            return;
          }
          const timer = setTimeout(() => resolve(false), 5000);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        await slowAborted;
        return user('slow', 'late');
      }
      return user(req.id, 'Ada');
    },
    ...otherUserHandlers,
  };
  const gateway = new ProtocolGateway({ enableUDP: false });
  gateway.addService(UserServiceDescriptor, handlers, { methods: { deleteUser: { authentication: true } } });
  gateway.configureAuthentication({ providers: { apikey: { validate: (key) => key === 'let-me-in' } } });
  configure?.(gateway);
  const port = (await gateway.listen(0, '127.0.0.1')).port as number;
  const slow = async (): Promise<SlowOutcome> => {
    const started = slowAborted;
    slowAborted = undefined;
    if (started === undefined) return 'not-started';
    return (await started) ? 'aborted' : 'finished';
  };
  return { gateway, port, slow };
}
