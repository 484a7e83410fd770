/**
 * Drain, as rows of the conformance table: with every adapter's calls in
 * flight, the gateway, the fw app hosting a gateway (its close()) and the
 * `server.grpc()` app (on fw's engine and on grpc-js's) close with a short shutdown timeout. A server or bidi stream still open when it passes ends with its
 * protocol's UNAVAILABLE (gRPC status 14, an NDJSON/SSE error line, a Connect
 * or gRPC-Web end-of-stream error, a WebSocket error envelope, a TCP error
 * frame), never a bare cut; a unary call started before close() is answered.
 * One close for all adapters: the servers here are their own, started once.
 */
import type { FwApplication, ProtocolGateway } from 'fw';
import type { GrpcApplication } from 'fw/grpc';
import { HOST } from '../gateway/support/clients';
import { ADAPTERS, type Connection, type Outcome } from './adapters';
import { DRAIN_CASES, SERVICE, started } from './case-table';
import { carried, expected, notApplicable } from './expectations';
import { conformanceApp, conformanceGateway, hostingApp, listenHosted } from './servers';

/** Short, but well past the unary call's own time (UNHURRIED_MS). */
const SHUTDOWN_TIMEOUT = 500;

/** Why a drain row does not run over an adapter, beyond the call kind. */
function drainNotApplicable(a: (typeof ADAPTERS)[number]): string | undefined {
  if (a.inProcess === true) return 'the in-process client reaches the app without a socket: closing its server does not end those calls';
  return undefined;
}

const rows = DRAIN_CASES.flatMap((c) => ADAPTERS.filter((a) => notApplicable(c, a) === undefined && drainNotApplicable(a) === undefined).map((a) => [c.name, a.name, c, a] as const));

describe('conformance: drain with calls in flight, over every adapter', () => {
  let gateway: ProtocolGateway;
  let app: GrpcApplication;
  let grpcJsApp: GrpcApplication;
  let hostedGateway: ProtocolGateway;
  let hosted: FwApplication;
  const connections: Connection[] = [];
  const outcomes = new Map<string, Promise<Outcome>>();

  beforeAll(async () => {
    gateway = conformanceGateway(SHUTDOWN_TIMEOUT);
    const address = await gateway.listen(0, HOST);
    hostedGateway = conformanceGateway(SHUTDOWN_TIMEOUT);
    hosted = hostingApp(hostedGateway);
    app = conformanceApp();
    const { port } = await app.listen(0, HOST);
    grpcJsApp = conformanceApp('grpc-js');
    const grpcJsPort = (await grpcJsApp.listen(0, HOST)).port;
    const servers = { gateway: { port: address.port as number, udpPort: address.udpPort as number }, hosted: await listenHosted(hosted), grpcApp: app, grpcPort: port, grpcJsPort };
    const before = started.count;
    for (const [caseName, adapterName, c, a] of rows) {
      const connection = await a.open(servers);
      connections.push(connection);
      outcomes.set(`${caseName} / ${adapterName}`, connection.call(SERVICE, c.method, c.kind, c.input));
    }
    // Every call has reached its handler (a stream: sent its first item) before close() begins. Bounded wait.
    for (let i = 0; i < 500 && started.count - before < rows.length; i++) await new Promise((r) => setTimeout(r, 10));
    expect(started.count - before).toBe(rows.length);
    // The hosted rows drain through the app's close(), as a user's app stops.
    await Promise.all([gateway.close(), hosted.close({ graceMs: SHUTDOWN_TIMEOUT }), app.close({ timeoutMs: SHUTDOWN_TIMEOUT }), grpcJsApp.close({ timeoutMs: SHUTDOWN_TIMEOUT })]);
  }, 30_000);

  afterAll(async () => {
    for (const c of connections) c.close();
    await hostedGateway.close();
  });

  it('names the adapters a drain row does not run over', () => {
    expect(ADAPTERS.filter((a) => drainNotApplicable(a) !== undefined).map((a) => `${a.name}: ${drainNotApplicable(a)}`)).toEqual([
      'fw/testing: the in-process client reaches the app without a socket: closing its server does not end those calls',
      'fw/testing proto: the in-process client reaches the app without a socket: closing its server does not end those calls',
    ]);
  });

  it.each(rows)('%s over %s', async (caseName, adapterName, c, a) => {
    const outcome = await (outcomes.get(`${caseName} / ${adapterName}`) as Promise<Outcome>);
    expect(carried(outcome, c, a)).toEqual(expected(c, a));
  });
});
