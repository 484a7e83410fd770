/**
 * Forwarding through a real ProtocolGateway: calls to a service the gateway
 * does not host go to discovered gRPC instances, whichever protocol they
 * arrive on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ProtocolGateway } from 'fw';
import { httpDriver, tcpDriver, udpDriver, wsDriver, type Driver } from '../support/drivers';
import { HOST } from '../support/clients';
import { startInstance, type TestInstance } from './test-instances';

describe('gateway → discovered instances', () => {
  let gateway: ProtocolGateway;
  let instances: TestInstance[];
  let port: number;
  let drivers: Driver[] = [];
  const protoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-fwd-'));
  const protoFile = path.join(protoDir, 'echo.proto');
  fs.writeFileSync(
    protoFile,
    'syntax = "proto3"; package test; service EchoService { rpc Echo (EchoRequest) returns (EchoReply); }\n' +
      'message EchoRequest { int32 n = 1; } message EchoReply { string instance = 1; EchoRequest echo = 2; }\n',
  );

  beforeAll(async () => {
    instances = await Promise.all(['a', 'b', 'c'].map((id) => startInstance(id)));
    gateway = new ProtocolGateway({});
    gateway.configureServiceDiscovery({
      provider: 'static',
      services: { EchoService: { strategy: 'round_robin', instances: instances.map((i) => ({ host: HOST, port: i.port })) } },
      routing: { http: { sticky_sessions: true, session_header: 'X-Session-ID' } },
    });
    // gRPC clients reach the discovered service through a proto mapped onto it.
    gateway.configureGRPC({ protoFiles: [protoFile], services: { 'test.EchoService': 'EchoService' }, methodMapping: { Echo: 'echo' } });
    port = (await gateway.listen(0, HOST)).port as number;
    drivers = [httpDriver(port), await wsDriver(port), udpDriver(port), await tcpDriver(port)];
  });

  afterAll(async () => {
    for (const d of drivers) d.close();
    await gateway?.close();
    await Promise.all((instances ?? []).map((i) => i.stop()));
    fs.rmSync(protoDir, { recursive: true, force: true });
  });

  test('gRPC calls (a proto mapped with configureGRPC) are forwarded round robin too', async () => {
    const pkg = grpc.loadPackageDefinition(loadSync(protoFile)) as unknown as { test: { EchoService: grpc.ServiceClientConstructor } };
    const client = new pkg.test.EchoService(`${HOST}:${port}`, grpc.credentials.createInsecure());
    try {
      const seen: string[] = [];
      for (let n = 1; n <= 6; n++) {
        type Reply = { instance: string; echo: { n: number } };
        const echo = client as unknown as { Echo(req: unknown, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r: Reply) => void): void };
        const reply = await new Promise<Reply>((resolve, reject) => echo.Echo({ n }, { deadline: Date.now() + 5000 }, (e, r) => (e ? reject(e) : resolve(r))));
        expect(reply.echo.n).toBe(n);
        seen.push(reply.instance);
      }
      expect([...seen].sort()).toEqual(['a', 'a', 'b', 'b', 'c', 'c']);
    } finally {
      client.close();
    }
  });

  test('HTTP, WebSocket, UDP and TCP calls are forwarded round robin, with the trace id', async () => {
    for (const d of drivers) {
      const seen: string[] = [];
      for (let i = 0; i < 6; i++) {
        const out = await d.call('EchoService', 'echo', { n: i }, { traceId: `trace-${d.protocol}-${i}` });
        if (!out.ok) throw new Error(`${d.protocol}: ${out.code} ${out.message}`);
        const data = out.data as { instance: string; echo: { n: number } };
        expect(data.echo).toEqual({ n: i });
        seen.push(data.instance);
      }
      expect([...seen].sort()).toEqual(['a', 'a', 'b', 'b', 'c', 'c']);
    }
    const traced = instances.flatMap((i) => i.traceIds);
    expect(traced).toEqual(expect.arrayContaining(['trace-http-0', 'trace-websocket-3', 'trace-udp-5', 'trace-tcp-1']));
  });

  test('sticky sessions hold over HTTP through the gateway', async () => {
    for (const session of ['alpha', 'beta', 'gamma']) {
      const seen = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`http://${HOST}:${port}/api/EchoService/echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-session-id': session },
          body: '{}',
        });
        expect(res.status).toBe(200);
        seen.add(((await res.json()) as { data: { instance: string } }).data.instance);
      }
      expect(seen.size).toBe(1);
    }
  });

  test('an instance error keeps its code through the gateway; an unknown service is still SERVICE_NOT_FOUND', async () => {
    const http = drivers[0] as Driver;
    const failed = await http.call('EchoService', 'fail', { code: 5 });
    expect(failed).toMatchObject({ ok: false, httpStatus: 404 });
    const unknown = await http.call('NoSuchService', 'echo', {});
    expect(unknown).toMatchObject({ ok: false, code: 'SERVICE_NOT_FOUND' });
  });

  test("an HTTP caller's grpc-timeout header bounds the forwarded call (sooner than the 10 s default)", async () => {
    const res = await fetch(`http://${HOST}:${port}/api/EchoService/hold`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'grpc-timeout': '300m' },
      body: '{}',
      // A guard: without the header the call would wait for the 10 s forwarding deadline.
      signal: AbortSignal.timeout(5000),
    });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ error: 'DEADLINE_EXCEEDED' });
  });
});
