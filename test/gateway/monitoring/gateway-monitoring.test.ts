/**
 * Monitoring through a real ProtocolGateway: calls over all five protocols on
 * one port, then getMetrics(), GET /metrics, spans and log lines.
 */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { ProtocolGateway, ServiceError } from 'fw';
import { allDrivers, type Driver } from '../support/drivers';
import { HOST } from '../support/clients';
import { lineCollector } from './call-helpers';

describe('monitoring a live gateway on every protocol', () => {
  let gateway: ProtocolGateway;
  let drivers: Driver[];
  let port: number;
  const exporter = new InMemorySpanExporter();
  const log = lineCollector();

  beforeAll(async () => {
    gateway = new ProtocolGateway({});
    gateway.addService('Users', {
      getUser: async (req: { id: string }) => ({ id: req.id, name: 'Ada' }),
      missing: async () => {
        throw new ServiceError('USER_NOT_FOUND', 'User 42 not found', 404);
      },
    });
    gateway.configureMonitoring({
      metrics: { enabled: true, collectors: ['request_count', 'request_duration', 'error_rate', 'active_connections', 'throughput'] },
      tracing: { enabled: true, provider: 'otlp', correlationHeader: 'X-Trace-ID', exporter, exportImmediately: true },
      logging: { level: 'info', format: 'json', fields: ['timestamp', 'protocol', 'service', 'method', 'client_id', 'duration', 'status'], destination: log.stream },
    });
    const address = await gateway.listen(0, HOST);
    port = address.port as number;
    drivers = await allDrivers(port, 'Users', ['getUser', 'missing']);
  });

  afterAll(async () => {
    for (const d of drivers ?? []) d.close();
    await gateway?.close();
  });

  test('a known mix of calls gives exact per-protocol counts, Prometheus text and one log line per call', async () => {
    // Per protocol: k successful getUser calls (k = 1..5) and one failing call.
    const plan = { http: 1, websocket: 2, grpc: 3, udp: 4, tcp: 5 } as const;
    for (const d of drivers) {
      for (let i = 0; i < plan[d.protocol]; i++) expect((await d.call('Users', 'getUser', { id: String(i) })).ok).toBe(true);
      expect((await d.call('Users', 'missing', {})).ok).toBe(false);
    }
    const metrics = gateway.getMetrics() as ReturnType<ProtocolGateway['getMetrics']> & { error_rate: Record<string, number>; active_connections: Record<string, number> };
    expect(metrics.requests_total).toEqual({ http: 2, websocket: 3, grpc: 4, udp: 5, tcp: 6 });
    for (const p of Object.keys(plan) as (keyof typeof plan)[]) expect(metrics.avg_response_time[p]).toBeGreaterThan(0);
    expect(metrics.error_rate).toEqual({ http: 1 / 2, websocket: 1 / 3, grpc: 1 / 4, udp: 1 / 5, tcp: 1 / 6 });
    expect(metrics.active_connections.websocket).toBe(1);
    expect(metrics.active_connections.tcp).toBe(1);

    const res = await fetch(`http://${HOST}:${port}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    for (const [protocol, n] of Object.entries(plan)) {
      expect(text).toContain(`fw_gateway_requests_total{protocol="${protocol}",service="Users",method="getUser",status="OK"} ${n}`);
      expect(text).toContain(`fw_gateway_requests_total{protocol="${protocol}",service="Users",method="missing",status="USER_NOT_FOUND"} 1`);
    }

    await new Promise((r) => setImmediate(r));
    const lines = log.lines.filter((l) => l.method === 'getUser' || l.method === 'missing');
    expect(lines).toHaveLength(20);
    for (const line of lines) expect(Object.keys(line).sort()).toEqual(['client_id', 'duration', 'method', 'protocol', 'service', 'status', 'timestamp']);
    expect(lines.filter((l) => l.status === 'USER_NOT_FOUND').map((l) => l.protocol).sort()).toEqual(['grpc', 'http', 'tcp', 'udp', 'websocket']);
  });

  test('a trace id sent by a client appears in the span and in the reply, on every protocol', async () => {
    for (const d of drivers) {
      exporter.reset();
      const traceId = `4bf92f3577b34da6a3ce929d0e0e${String(1000 + drivers.indexOf(d))}`;
      const outcome = await d.call('Users', 'getUser', { id: '7' }, { traceId });
      expect(outcome.ok).toBe(true);
      expect(outcome.traceId).toBe(traceId);
      const spans = exporter.getFinishedSpans().filter((s) => s.name === 'Users/getUser');
      expect(spans).toHaveLength(1);
      expect(spans[0]?.spanContext().traceId).toBe(traceId);
      expect(spans[0]?.attributes['fw.protocol']).toBe(d.protocol);
    }
  });

  test('calls to methods not served here are counted and spanned as _OTHER, so client-made names never become labels', async () => {
    exporter.reset();
    for (const d of drivers) {
      const outcome = await d.call('Users', `made-up-${d.protocol}`, {});
      expect(outcome.ok).toBe(false);
    }
    expect((await drivers[0]?.call(`NoSuchService${Date.now()}`, 'x', {}))?.ok).toBe(false);
    const text = await (await fetch(`http://${HOST}:${port}/metrics`)).text();
    expect(text).not.toContain('made-up-');
    expect(text).not.toContain('NoSuchService');
    expect(text).toMatch(/fw_gateway_requests_total\{protocol="tcp",service="_OTHER",method="_OTHER",status="[A-Z_]+"\} 1/);
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThanOrEqual(5);
    for (const span of spans) {
      expect(span.attributes['rpc.method']).toBe('_OTHER');
      expect(span.name).toBe(span.attributes['rpc.system.name']);
      expect(String(span.attributes['rpc.method_original'])).toMatch(/made-up-|NoSuchService/);
    }
  });

  test('a W3C traceparent from an HTTP client makes the gateway span its child', async () => {
    exporter.reset();
    const res = await fetch(`http://${HOST}:${port}/api/Users/getUser`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      body: JSON.stringify({ id: '1' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trace-id')).toBe('0af7651916cd43dd8448eb211c80319c');
    const [span] = exporter.getFinishedSpans();
    expect(span?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
  });
});
