/**
 * Clients for the generated UserService (proto/user.proto) behind a gateway:
 * JSON over HTTP, and a gRPC client built from the .proto with
 * @grpc/proto-loader (real protobuf encoding, none of fw's code).
 */
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { withTimeout } from './clients';

type Json = Record<string, unknown>;

/** `req(method, url, body?)` against `base`, answering status and parsed JSON. */
export function jsonRequester(base: string): (method: string, url: string, body?: unknown) => Promise<{ status: number; json: Json }> {
  return async (method, url, body) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
}

export interface UserServiceGrpcClient {
  client: Record<string, (...a: unknown[]) => unknown> & grpc.Client;
  /** One unary call, bounded at 5 s. */
  call<T>(method: string, request: unknown): Promise<T>;
}

/** A proto-loader client of user.UserService at `host:port`. */
export function userServiceGrpcClient(host: string, port: number): UserServiceGrpcClient {
  const root = path.resolve(__dirname, '../../..');
  const def = loadSync(path.join(root, 'proto/user.proto'), {
    includeDirs: ['proto', 'cli/protos', 'node_modules/google-proto-files'].map((d) => path.join(root, d)),
    keepCase: false,
    defaults: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { user: { UserService: grpc.ServiceClientConstructor } };
  const client = new pkg.user.UserService(`${host}:${port}`, grpc.credentials.createInsecure()) as unknown as UserServiceGrpcClient['client'];
  const call = <T>(method: string, request: unknown): Promise<T> =>
    withTimeout(new Promise<T>((resolve, reject) => {
      client[method]?.(request, (err: grpc.ServiceError | null, value: T) => (err === null ? resolve(value) : reject(err)));
    }), 5000, method);
  return { client, call };
}
