/**
 * Serves the example user service on all five gateway protocols on one port:
 * HTTP/JSON (google.api.http routes and POST /api/UserService/<method>, plus
 * GET /health and GET /ready), WebSocket (/ws), gRPC, TCP frames, and UDP on
 * the same port number, with gRPC server reflection (grpcurl works without
 * the .proto). An fw app owns the port and hosts the gateway. `npm start`
 * runs this and prints one call per protocol (sample-calls.ts); `PORT`
 * (default 50051) and `HOST` (default 127.0.0.1).
 *
 * @example
 * // npm start
 * // curl -s -X POST localhost:50051/users -H 'content-type: application/json' -d '{"name":"Ada","email":"ada@example.com"}'
 */
import { healthCheck, ProtocolGateway, readinessCheck, server, type FwApplication, type GatewayAddress } from 'fw';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { sampleCalls } from './sample-calls';
import { UserServiceImpl } from './user.service';

/** A running example: the fw app that owns the port, and the gateway it hosts. */
export interface RunningUserGateway {
  app: FwApplication;
  gateway: ProtocolGateway;
  address: GatewayAddress;
  /** Reports not ready, then closes the app (draining HTTP) and the gateway. */
  close(): Promise<void>;
}

/**
 * Starts the example on `port` (0 picks a free one): an fw app with the
 * `/health` and `/ready` routes of spec 4.11, hosting the gateway's HTTP
 * bindings, WebSocket, gRPC, TCP frames and UDP on its one port.
 * @example
 * const running = await startUserGateway(0);
 * await running.close();
 */
export async function startUserGateway(port: number, host = '127.0.0.1'): Promise<RunningUserGateway> {
  const gateway = new ProtocolGateway({ grpc: { reflection: true } });
  gateway.configureHTTP({ basePath: '/api' });
  gateway.addService(UserServiceDescriptor, new UserServiceImpl());

  let accepting = true;
  const app = server.http();
  app.get('/health', healthCheck({ version: '0.1.0' }));
  app.get(
    '/ready',
    readinessCheck(() => {
      if (!accepting) throw new Error('shutting down');
    }),
  );
  app.use(gateway.middleware());
  app.withOptions({
    websocket: gateway.getWebSocketConfig(),
    grpc: gateway.getGRPCConfig(),
    udp: gateway.getUDPConfig(),
    tcp: gateway.getTCPConfig(),
  });
  await app.listen(port, host);
  const bound = app.address()?.port ?? port;
  return {
    app,
    gateway,
    address: { host, port: bound, udpPort: bound },
    close: async () => {
      accepting = false;
      await app.close();
      await gateway.close();
    },
  };
}

/** Starts from the command line (`npm start`): PORT and HOST from the environment, stops on SIGINT/SIGTERM. */
export function serve(): void {
  const port = Number(process.env['PORT'] ?? 50051);
  const host = process.env['HOST'] ?? '127.0.0.1';
  startUserGateway(Number.isInteger(port) ? port : 50051, host).then(
    (running) => {
      const { address } = running;
      const port = address.port ?? 0;
      process.stdout.write(`user service on ${host}:${port}: HTTP (/health, /ready, /users, /api/UserService/<method>), WebSocket (/ws), gRPC (with reflection), TCP frames; UDP on ${address.udpPort ?? ''}\n`);
      process.stdout.write('One call per protocol:\n');
      for (const call of sampleCalls(host, port)) process.stdout.write(`  ${call.protocol.padEnd(10)}${call.command}\n`);
      const stop = (): void => void running.close().finally(() => process.exit(0));
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
