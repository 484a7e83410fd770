/**
 * Handlers for user.proto, created once by fw-gen: edit the method bodies.
 * Later runs keep every body byte for byte, append new RPCs as UNIMPLEMENTED
 * stubs and update changed signatures (docs/codegen.md "Stub merge").
 */
import type { RequestContext } from 'fw';
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

/** Manages users. */
export class UserServiceImpl implements UserServiceHandlers {
  /** Fetches one user by id. */
  async getUser(request: GetUserRequest, context: RequestContext): Promise<User> {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/user.UserService/GetUser has no handler yet');
  }

  /** Creates a user. */
  async createUser(request: CreateUserRequest, context: RequestContext): Promise<User> {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/user.UserService/CreateUser has no handler yet');
  }

  /** Updates the fields present in the request. */
  async updateUser(request: UpdateUserRequest, context: RequestContext): Promise<User> {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/user.UserService/UpdateUser has no handler yet');
  }

  /** Deletes a user. */
  async deleteUser(request: DeleteUserRequest, context: RequestContext): Promise<DeleteUserResponse> {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/user.UserService/DeleteUser has no handler yet');
  }

  /** Streams users page by page. */
  async *listUsers(request: ListUsersRequest, context: RequestContext): AsyncIterable<User> {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/user.UserService/ListUsers has no handler yet');
  }

  /** Streams users matching a query. */
  async *searchUsers(request: SearchUsersRequest, context: RequestContext): AsyncIterable<User> {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/user.UserService/SearchUsers has no handler yet');
  }

  /** Creates every user sent; failing items do not stop the others. */
  async createMultipleUsers(requests: AsyncIterable<CreateUserRequest>, context: RequestContext): Promise<CreateMultipleUsersResponse> {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/user.UserService/CreateMultipleUsers has no handler yet');
  }

  /** A chat room: every message is broadcast to every participant. */
  async *chatWithUsers(requests: AsyncIterable<ChatMessage>, context: RequestContext): AsyncIterable<ChatMessage> {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/user.UserService/ChatWithUsers has no handler yet');
  }
}
