/**
 * Serves the example user service on all five gateway protocols on one port:
 * HTTP/JSON (google.api.http routes and POST /api/UserService/<method>),
 * WebSocket (/ws), gRPC, TCP frames, and UDP on the same port number.
 * `npm start` runs this; `PORT` (default 50051) and `HOST` (default 127.0.0.1).
 *
 * @example
 * // npm start
 * // curl -s -X POST localhost:50051/users -H 'content-type: application/json' -d '{"name":"Ada","email":"ada@example.com"}'
 */
import { ProtocolGateway, type GatewayAddress } from 'fw';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { UserServiceImpl } from './user.service';

/** A running gateway with the user service. */
export interface RunningUserGateway {
  gateway: ProtocolGateway;
  address: GatewayAddress;
}

/**
 * Starts the gateway on `port` (0 picks a free one).
 * @example
 * const { gateway, address } = await startUserGateway(0);
 * await gateway.close();
 */
export async function startUserGateway(port: number, host = '127.0.0.1'): Promise<RunningUserGateway> {
  const gateway = new ProtocolGateway({});
  gateway.addService(UserServiceDescriptor, new UserServiceImpl());
  const address = await gateway.listen(port, host);
  return { gateway, address };
}

/** Starts from the command line (`npm start`): PORT and HOST from the environment, stops on SIGINT/SIGTERM. */
export function serve(): void {
  const port = Number(process.env['PORT'] ?? 50051);
  const host = process.env['HOST'] ?? '127.0.0.1';
  startUserGateway(Number.isInteger(port) ? port : 50051, host).then(
    ({ gateway, address }) => {
      process.stdout.write(`user service on ${host}:${address.port ?? ''}: HTTP, WebSocket (/ws), gRPC, TCP frames; UDP on ${address.udpPort ?? ''}\n`);
      const stop = (): void => void gateway.close().finally(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (error: unknown) => {
      process.stderr.write(`user service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

if (require.main === module) serve();
