/**
 * Serves the example user service over gRPC: `PORT` (default 50051) on
 * `HOST` (default 127.0.0.1).
 *
 * @example
 * // after npm run build:
 * // PORT=0 node dist/examples/user-service/main.js
 */
import { server } from 'fw';
import type { GrpcApplication } from 'fw/grpc';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { UserServiceImpl } from './user.service';
import { userServiceOptions } from './user-service-options';

/** A running example server. */
export interface RunningUserService {
  app: GrpcApplication;
  port: number;
}

/**
 * Starts the user service on `port` (0 picks a free one).
 * @example
 * const { app, port } = await startUserService(0);
 * await app.close();
 */
export async function startUserService(port: number, host = '127.0.0.1'): Promise<RunningUserService> {
  const app = server.grpc();
  app.addService(UserServiceDescriptor, new UserServiceImpl(), userServiceOptions);
  const address = await app.listen(port, host);
  return { app, port: address.port };
}

if (require.main === module) {
  const port = Number(process.env['PORT'] ?? 50051);
  const host = process.env['HOST'] ?? '127.0.0.1';
  startUserService(Number.isInteger(port) ? port : 50051, host).then(
    ({ app, port: bound }) => {
      process.stdout.write(`user service listening on ${host}:${bound} (gRPC)\n`);
      const stop = (): void => void app.close().finally(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (error: unknown) => {
      process.stderr.write(`user service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
