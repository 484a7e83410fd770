/**
 * Handlers for user.proto, created once by fw-gen: edit the method bodies.
 * Later runs keep every body byte for byte, append new RPCs as UNIMPLEMENTED
 * stubs and update changed signatures (docs/codegen.md "Stub merge").
 */
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { violationsOf, type RequestContext } from 'fw';
import { GrpcError, GrpcStatus } from 'fw/grpc';
import type {
  ChatMessage,
  CreateMultipleUsersResponse,
  CreateUserRequest,
  DeleteUserRequest,
  DeleteUserResponse,
  GetUserRequest,
  ListUsersRequest,
  SearchUsersRequest,
  UpdateUserRequest,
  User,
} from '../../generated/user';
import type { UserServiceHandlers } from '../../generated/user.fw';
import { ChatRoom } from './chat-room';
import { StoreError, UserStore } from './user-store';

/** Maps storage failures to the statuses of spec 7.1; anything else becomes INTERNAL. */
function toGrpcError(error: unknown): GrpcError {
  if (error instanceof GrpcError) return error;
  if (error instanceof StoreError) {
    if (error.name === 'NotFoundError') return new GrpcError(GrpcStatus.NOT_FOUND, error.message);
    if (error.name === 'ConflictError') return new GrpcError(GrpcStatus.ALREADY_EXISTS, error.message);
    return new GrpcError(GrpcStatus.INVALID_ARGUMENT, error.message);
  }
  return new GrpcError(GrpcStatus.INTERNAL, 'internal error');
}

/** Manages users. */
export class UserServiceImpl implements UserServiceHandlers {
  constructor(
    private readonly store: UserStore = new UserStore(),
    private readonly room: ChatRoom = new ChatRoom(),
  ) {}

  /** Fetches one user by id. */
  async getUser(request: GetUserRequest, context: RequestContext): Promise<User> {
    try {
      return this.store.get(request.id);
    } catch (error) {
      throw toGrpcError(error);
    }
  }

  /** Creates a user. */
  async createUser(request: CreateUserRequest, context: RequestContext): Promise<User> {
    try {
      return this.store.create(request);
    } catch (error) {
      throw toGrpcError(error);
    }
  }

  /** Updates the fields present in the request. */
  async updateUser(request: UpdateUserRequest, context: RequestContext): Promise<User> {
    try {
      return this.store.update(request.id, request);
    } catch (error) {
      throw toGrpcError(error);
    }
  }

  /** Deletes a user. */
  async deleteUser(request: DeleteUserRequest, context: RequestContext): Promise<DeleteUserResponse> {
    try {
      this.store.delete(request.id);
      return { success: true };
    } catch (error) {
      throw toGrpcError(error);
    }
  }

  /** Streams users page by page. */
  async *listUsers(request: ListUsersRequest, context: RequestContext): AsyncGenerator<User, void> {
    const page = request.page > 0 ? request.page : 1;
    const limit = request.limit > 0 ? request.limit : 10;
    const sortBy = request.sortBy !== '' ? request.sortBy : 'created_at';
    let offset = (page - 1) * limit;
    // Bounded by the store size: each round advances by `limit` until a short batch.
    for (;;) {
      if (context.signal.aborted) return;
      const batch = this.store.page(offset, limit, sortBy, request.sortOrder);
      for (const user of batch) yield user;
      if (batch.length < limit) return;
      offset += limit;
    }
  }

  /** Streams users matching a query. */
  async *searchUsers(request: SearchUsersRequest, context: RequestContext): AsyncGenerator<User, void> {
    const limit = request.limit > 0 ? request.limit : 10;
    for (const user of this.store.search(request.query, request.fields, limit)) yield user;
  }

  /**
   * Creates every user sent; failing items do not stop the others.
   * Registered with `invalidItems: 'deliver'` (user-service-options.ts), so
   * items that break CreateUserRequest's rules arrive with their violations.
   */
  async createMultipleUsers(requests: AsyncIterable<CreateUserRequest>, context: RequestContext): Promise<CreateMultipleUsersResponse> {
    const users: User[] = [];
    const errors: string[] = [];
    let position = 0;
    try {
      for await (const request of requests) {
        position += 1;
        const violations = violationsOf(request);
        if (violations !== undefined) {
          errors.push(`item ${position}: ${violations.map((v) => `${v.field} ${v.message}`).join('; ')}`);
          continue;
        }
        try {
          users.push(this.store.create(request));
        } catch (error) {
          errors.push(`item ${position}: ${toGrpcError(error).message}`);
        }
      }
    } catch (error) {
      if (error instanceof GrpcError) throw error;
      throw new GrpcError(GrpcStatus.INTERNAL, 'batch creation failed');
    }
    return { count: users.length, users, errors };
  }

  /** A chat room: every message is broadcast to every participant. */
  async *chatWithUsers(requests: AsyncIterable<ChatMessage>, context: RequestContext): AsyncGenerator<ChatMessage, void> {
    const inbox = this.room.join();
    const pump = (async () => {
      try {
        for await (const incoming of requests) {
          this.room.broadcast({ userId: incoming.userId, message: incoming.message, timestamp: timestampNow() });
        }
      } finally {
        this.room.leave(inbox);
      }
    })();
    try {
      yield { userId: 'system', message: 'welcome to the chat', timestamp: timestampNow() };
      for await (const message of inbox) yield message;
      await pump;
    } finally {
      this.room.leave(inbox);
    }
  }
}
