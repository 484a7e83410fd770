/**
 * One case table (case-table.ts) run over every adapter (adapters.ts): the
 * gateway's HTTP/JSON, NDJSON, SSE, Connect (JSON and proto) and gRPC-Web
 * (JSON, proto, text) over HTTP/1.1, Connect and gRPC-Web proto over h2c,
 * gRPC (JSON and proto), WebSocket json/msgpack/binary, TCP and UDP, each on
 * the gateway's own port and hosted on an fw app's port; and
 * `server.grpc()` through grpc-js, fw/grpc-client and fw/testing, each with
 * the inline JSON service and the generated protobuf one, and its socket
 * clients again against the app on the grpc-js engine. The same handler
 * failing the same way must give the same outcome in every protocol's form.
 * Drain is drain.test.ts (it closes its servers).
 */
import type { FwApplication, ProtocolGateway } from 'fw';
import type { GrpcApplication } from 'fw/grpc';
import { ADAPTERS, HOSTED, MALFORMED, ON_GRPC_JS, type Connection } from './adapters';
import { aborted, CASES, SERVICE } from './case-table';
import { carried, expected, notApplicable } from './expectations';
import { conformanceApp, conformanceGateway, hostingApp, listenHosted } from './servers';
import { HOST } from '../gateway/support/clients';

const runs = CASES.flatMap((c) => ADAPTERS.filter((a) => notApplicable(c, a) === undefined).map((a) => [c.name, a.name, c, a] as const));
// Rows a call kind rules out are listed by the first test, the rest by the second (a case over named adapters alone says so itself).
const notRun = CASES.filter((c) => c.onlyOver === undefined).flatMap((c) => ADAPTERS.filter((a) => a.kinds.includes(c.kind)).map((a) => [c.name, a.name, notApplicable(c, a)] as const).filter(([, , why]) => why !== undefined));

const SOCKET_CLIENTS = ['server.grpc() JSON (grpc-js client)', 'server.grpc() proto (grpc-js client)', 'server.grpc() (fw/grpc-client)', 'server.grpc() proto (fw/grpc-client)'];

/** The transformError rows over server.grpc()'s clients, which do not run. */
function notTransformed(...cases: string[]): string[] {
  const adapters = [...SOCKET_CLIENTS, 'fw/testing', 'fw/testing proto', ...SOCKET_CLIENTS.map((a) => `${a}${ON_GRPC_JS}`)];
  return cases.flatMap((c) => adapters.map((a) => `${c} / ${a}: configureErrorHandling is the gateway's`));
}

/** `rows` (`<case> / <adapter>: <why>`), then the same for the grpc-js engine's adapters of those that are socket clients. */
function onBothEngines(rows: string[]): string[] {
  const again = rows.filter((r) => SOCKET_CLIENTS.some((a) => r.includes(` / ${a}: `))).map((r) => r.replace(/ \/ (.+?): /, (_m, a: string) => ` / ${a}${ON_GRPC_JS}: `));
  return [...rows, ...again];
}

/** The rows that do not run for a reason other than the call kind, each with that reason. */
const OTHER_NOT_RUN = [
  ...onBothEngines([
    'validation / server.grpc() JSON (grpc-js client): an inline service on server.grpc() carries no input schema',
    'validation / server.grpc() (fw/grpc-client): an inline service on server.grpc() carries no input schema',
    'validation / fw/testing: an inline service on server.grpc() carries no input schema',
  ]),
  ...onBothEngines([
    'unknown method / server.grpc() proto (fw/grpc-client): a typed client only has the methods the service has',
    'unknown method / fw/testing: a typed client only has the methods the service has',
    'unknown method / fw/testing proto: a typed client only has the methods the service has',
  ]),
  ...onBothEngines([
    'unknown service / server.grpc() proto (fw/grpc-client): a typed client only has the methods the service has',
    'unknown service / fw/testing: a typed client only has the methods the service has',
    'unknown service / fw/testing proto: a typed client only has the methods the service has',
  ]),
  ...onBothEngines([
    'malformed input / server.grpc() (fw/grpc-client): the client encodes every request itself',
    'malformed input / server.grpc() proto (fw/grpc-client): the client encodes every request itself',
    'malformed input / fw/testing: the client encodes every request itself',
    'malformed input / fw/testing proto: the client encodes every request itself',
  ]),
  ...notTransformed('transformError on a unary call', 'transformError after a stream item'),
  'a client cancel reaching context.signal (unary) / UDP: a datagram cannot be called back',
  'a client cancel reaching context.signal (unary) / UDP (hosted): a datagram cannot be called back',
  ...['validation of an invalid client-stream item', 'validation of an invalid bidi item'].flatMap((c) => onBothEngines(
    ['server.grpc() JSON (grpc-js client)', 'server.grpc() (fw/grpc-client)', 'fw/testing'].map((a) => `${c} / ${a}: an inline service on server.grpc() carries no input schema`))),
  ...notTransformed('transformError on a client stream', 'transformError after a bidi item'),
];

describe('conformance: one case table over every adapter', () => {
  let gateway: ProtocolGateway;
  let app: GrpcApplication;
  let grpcJsApp: GrpcApplication;
  // One fw app hosting its own gateway, for every hosted row.
  let hostedGateway: ProtocolGateway;
  let hosted: FwApplication;
  const connections = new Map<string, Connection>();
  let metricsUrl = '';
  let hostedMetricsUrl = '';

  beforeAll(async () => {
    gateway = conformanceGateway();
    const address = await gateway.listen(0, HOST);
    hostedGateway = conformanceGateway();
    hosted = hostingApp(hostedGateway);
    app = conformanceApp();
    const { port } = await app.listen(0, HOST);
    grpcJsApp = conformanceApp('grpc-js');
    const grpcJsPort = (await grpcJsApp.listen(0, HOST)).port;
    metricsUrl = `http://${HOST}:${address.port as number}/metrics`;
    const servers = { gateway: { port: address.port as number, udpPort: address.udpPort as number }, hosted: await listenHosted(hosted), grpcApp: app, grpcPort: port, grpcJsPort };
    hostedMetricsUrl = `http://${HOST}:${servers.hosted.port}/metrics`;
    for (const a of ADAPTERS) connections.set(a.name, await a.open(servers));
  });

  afterAll(async () => {
    for (const c of connections.values()) c.close();
    await gateway.close();
    await hosted.close({ graceMs: 1000 });
    await hostedGateway.close();
    await app.close({ timeoutMs: 1000 });
    await grpcJsApp.close({ timeoutMs: 1000 });
  });

  it('names why a call kind does not run over an adapter', () => {
    const KINDS = ['unary', 'server', 'client', 'bidi'] as const;
    const lacking = ADAPTERS.filter((a) => a.kinds.length < KINDS.length)
      .map((a) => [a.name, Object.fromEntries(KINDS.filter((k) => !a.kinds.includes(k)).map((k) => [k, a.kindsNot?.[k] ?? 'no reason given']))]);
    const udp = 'a datagram carries one request and one reply (a streaming method answers STREAMING_NOT_SUPPORTED)';
    const gatewayForms = {
      'HTTP/JSON': { server: 'a streaming reply is NDJSON or SSE (their rows)', bidi: 'a streaming reply is NDJSON or SSE (their rows)' },
      NDJSON: { unary: 'a method with one reply answers one JSON body (the HTTP/JSON row)', client: 'a method with one reply answers one JSON body (the HTTP/JSON row)' },
      SSE: { unary: 'a method with one reply answers one JSON body (the HTTP/JSON row)', client: 'a method with one reply answers one JSON body (the HTTP/JSON row)' },
      UDP: { server: udp, client: udp, bidi: udp },
    };
    // Hosted on an fw app's port, each wire form offers the same call kinds as on the gateway's own port.
    const hostedForms = Object.fromEntries(Object.entries(gatewayForms).map(([name, why]) => [`${name}${HOSTED}`, why]));
    expect(Object.fromEntries(lacking)).toEqual({ ...gatewayForms, ...hostedForms });
  });

  it('runs every other case on every adapter whose protocol can express it', () => {
    expect(notRun.map(([c, a, why]) => `${c} / ${a}: ${why}`)).toEqual(OTHER_NOT_RUN);
    expect(runs.length).toBeGreaterThan(380);
  });

  it.each(runs)('%s over %s', async (_case, _adapter, c, a) => {
    const connection = connections.get(a.name) as Connection;
    for (let i = 0; i < (c.warmUp ?? 0); i++) await connection.call(c.service ?? SERVICE, c.method, c.kind, c.input);
    const abortsBefore = aborted.count;
    if (c.cancelAfterMs !== undefined) {
      await connection.cancel(c.service ?? SERVICE, c.method, c.kind, c.input, c.cancelAfterMs);
      // Bounded wait: the handler gives up after 3 s on its own, without counting an abort.
      for (let i = 0; i < 300 && aborted.count === abortsBefore; i++) await new Promise((r) => setTimeout(r, 10));
      expect(aborted.count).toBeGreaterThan(abortsBefore);
      return;
    }
    const outcome = await connection.call(c.service ?? SERVICE, c.method, c.kind, c.input, c.deadlineMs);
    expect(carried(outcome, c, a)).toEqual(expected(c, a));
    if (c.deadlineMs !== undefined) {
      // The handler's signal aborted too (bounded wait: the handler gives up after 3 s on its own).
      for (let i = 0; i < 300 && aborted.count === abortsBefore; i++) await new Promise((r) => setTimeout(r, 10));
      expect(aborted.count).toBeGreaterThan(abortsBefore);
    }
  });

  it.each([['its own port', () => metricsUrl], ['an fw app\'s port', () => hostedMetricsUrl]])('labels metrics with each failure\'s real status, on every gateway protocol (gateway on %s)', async (_where, url) => {
    const text = await (await fetch(url(), { signal: AbortSignal.timeout(5000) })).text();
    const label = (code: string): string => (code === 'INTERNAL_ERROR' ? 'INTERNAL' : code);
    const statuses = new Map<string, Set<string>>();
    for (const m of text.matchAll(/^fw_gateway_requests_total\{protocol="(\w+)",service="Conformance",method="(\w+)",status="(\w+)"\}/gm)) {
      const key = `${m[2]}`;
      statuses.set(key, (statuses.get(key) ?? new Set()).add(m[3] as string));
    }
    for (const c of CASES) {
      if (c.service !== undefined || c.method === 'Nope' || c.error?.code === undefined || c.input === MALFORMED) continue;
      expect([c.method, [...(statuses.get(c.method) ?? [])]]).toEqual([c.method, expect.arrayContaining([label(c.error.code)])]);
    }
    // Only handler failures are INTERNAL: a refusal is never counted as one.
    const internal = [...statuses].filter(([, set]) => set.has('INTERNAL')).map(([method]) => method).sort();
    expect(internal).toEqual(['Broken', 'Crash']);
    // Malformed input that names its method is counted with its status (a WebSocket message or frame that does not parse names none).
    expect(statuses.get('Echo')).toEqual(new Set(['OK', 'INVALID_JSON', 'INVALID_ARGUMENT']));
  });
});
