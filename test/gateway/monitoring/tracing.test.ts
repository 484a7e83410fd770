import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
import { createMonitoring, createSpanExporter, toOtelTraceId } from '../../../runtime/gateway/monitoring';
import { FakeServiceError, makeCall, makeContext, run } from './call-helpers';

function tracedMonitoring(extra: Parameters<typeof createMonitoring>[0] = {}) {
  const exporter = new InMemorySpanExporter();
  const monitoring = createMonitoring({ ...extra, tracing: { enabled: true, provider: 'otlp', exporter, exportImmediately: true, ...extra.tracing } });
  return { exporter, monitoring };
}

describe('gateway tracing', () => {
  test('a trace id sent by the client becomes the span trace id, with default attributes', async () => {
    const { exporter, monitoring } = tracedMonitoring();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const ctx = makeContext('http', { tracing: { traceId } });
    await run(monitoring.interceptor, makeCall('http', 'UserService', 'getUser', 'none', ctx), async () => ({ id: '1' }));
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('UserService/getUser');
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.spanContext().traceId).toBe(traceId);
    expect(span?.attributes).toMatchObject({ 'fw.protocol': 'http', 'network.peer.address': '127.0.0.1', 'rpc.system.name': 'fw', 'rpc.method': 'UserService/getUser', 'rpc.status_code': 'OK' });
    // The conventions before v1.39 (rpc.system, rpc.service, a bare rpc.method) are gone.
    expect(span?.attributes['rpc.service']).toBeUndefined();
    expect(span?.attributes['rpc.system']).toBeUndefined();
    // The ids are written back so the transport can echo them in the reply.
    expect(ctx.tracing.traceId).toBe(traceId);
    expect(ctx.tracing.spanId).toBe(span?.spanContext().spanId);
    expect(monitoring.correlationHeader).toBe('X-Trace-ID');
    await monitoring.close();
  });

  test('a traceparent parent span id makes the span a child of the remote caller', async () => {
    const { exporter, monitoring } = tracedMonitoring();
    const ctx = makeContext('grpc', { tracing: { traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331' } });
    await run(monitoring.interceptor, makeCall('grpc', 'UserService', 'getUser', 'none', ctx), async () => 1);
    const [span] = exporter.getFinishedSpans();
    expect(span?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(span?.parentSpanContext?.isRemote).toBe(true);
  });

  test('non-hex correlation ids map to a stable trace id and are kept as an attribute', async () => {
    const { exporter, monitoring } = tracedMonitoring();
    for (let i = 0; i < 2; i++) {
      const ctx = makeContext('tcp', { tracing: { traceId: 'order-42' } });
      await run(monitoring.interceptor, makeCall('tcp', 'S', 'm', 'none', ctx), async () => 1);
      expect(ctx.tracing.traceId).toBe('order-42');
    }
    const spans = exporter.getFinishedSpans();
    expect(spans[0]?.spanContext().traceId).toBe(toOtelTraceId('order-42'));
    expect(spans[1]?.spanContext().traceId).toBe(spans[0]?.spanContext().traceId);
    expect(spans[0]?.attributes['fw.correlation_id']).toBe('order-42');
    expect(toOtelTraceId('463ac35c9f6413ad')).toBe('0000000000000000463ac35c9f6413ad');
    expect(toOtelTraceId('123e4567-e89b-12d3-a456-426614174000')).toBe('123e4567e89b12d3a456426614174000');
  });

  test('a call without a trace id gets a fresh one the transport can echo', async () => {
    const { exporter, monitoring } = tracedMonitoring();
    const ctx = makeContext('udp');
    await run(monitoring.interceptor, makeCall('udp', 'S', 'm', 'none', ctx), async () => 1);
    expect(ctx.tracing.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(exporter.getFinishedSpans()[0]?.spanContext().traceId).toBe(ctx.tracing.traceId);
  });

  test('spanAttributes(context) sees service and method; failures mark the span as errored', async () => {
    const { exporter, monitoring } = tracedMonitoring({
      tracing: {
        spanAttributes: (c) => ({ 'gw.protocol': c.protocol, 'gw.client': c.client.address, 'gw.service': c.service, 'gw.method': c.method }),
      },
    });
    await expect(run(monitoring.interceptor, makeCall('websocket', 'UserService', 'deleteUser'), async () => { throw new FakeServiceError('FORBIDDEN', 'admins only', 403); })).rejects.toThrow();
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes).toMatchObject({ 'gw.protocol': 'websocket', 'gw.client': '127.0.0.1', 'gw.service': 'UserService', 'gw.method': 'deleteUser', 'rpc.status_code': 'FORBIDDEN', 'error.type': 'FORBIDDEN', 'rpc.method': 'UserService/deleteUser' });
    // A 4xx failure is the caller's: error.type says what happened, the span status stays unset.
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    await expect(run(monitoring.interceptor, makeCall('websocket', 'UserService', 'deleteUser'), async () => { throw new Error('disk on fire'); })).rejects.toThrow();
    expect(exporter.getFinishedSpans()[1]?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'disk on fire' });
    expect(exporter.getFinishedSpans()[1]?.attributes['error.type']).toBe('INTERNAL');
  });

  test('a throwing spanAttributes falls back to the default attributes and the call still succeeds', async () => {
    const { exporter, monitoring } = tracedMonitoring({ tracing: { spanAttributes: () => { throw new Error('oops'); } } });
    await expect(run(monitoring.interceptor, makeCall('http', 'S', 'm'), async () => 5)).resolves.toBe(5);
    expect(exporter.getFinishedSpans()[0]?.attributes).toMatchObject({ 'fw.protocol': 'http', 'rpc.method': 'S/m', 'fw.span_attributes_error': 'oops' });
  });

  test('streaming spans end when the stream ends', async () => {
    const { exporter, monitoring } = tracedMonitoring();
    async function* two() { yield 1; yield 2; }
    const stream = (await run(monitoring.interceptor, makeCall('websocket', 'S', 'watch', 'server'), () => two())) as AsyncIterable<number>;
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    for await (const item of stream) void item;
    expect(exporter.getFinishedSpans()).toHaveLength(1);
  });

  test('each provider is wired to its exporter', () => {
    expect(createSpanExporter('otlp', undefined, 'svc')).toBeInstanceOf(OTLPTraceExporter);
    expect(createSpanExporter('jaeger', undefined, 'svc')).toBeInstanceOf(OTLPTraceExporter);
    expect(createSpanExporter('zipkin', undefined, 'svc')).toBeInstanceOf(ZipkinExporter);
  });

  test('a service.name from spanAttributes is a span attribute: the resource keeps tracing.serviceName', async () => {
    const { exporter, monitoring } = tracedMonitoring({ tracing: { serviceName: 'gw-test', spanAttributes: (c) => ({ 'service.name': c.service }) } });
    await run(monitoring.interceptor, makeCall('http', 'UserService', 'getUser'), async () => 1);
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes['service.name']).toBe('UserService');
    expect(span?.resource.attributes['service.name']).toBe('gw-test');
    await monitoring.close();
  });

  test('exported, that span attribute stays a tag over OTLP and becomes the span\'s service in Zipkin', async () => {
    const attributes = JSON.stringify({ 'service.name': 'UserService' });
    const otlp = JSON.parse((await exportOneSpan('otlp', '/v1/traces', attributes)).body) as {
      resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: { attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[];
    };
    const [resourceSpans] = otlp.resourceSpans;
    const valueOf = (list: { key: string; value: { stringValue?: string } }[] | undefined): string | undefined => list?.find((a) => a.key === 'service.name')?.value.stringValue;
    expect(valueOf(resourceSpans?.resource.attributes)).toBe('gw-test');
    expect(valueOf(resourceSpans?.scopeSpans[0]?.spans[0]?.attributes)).toBe('UserService');
    const zipkin = JSON.parse((await exportOneSpan('zipkin', '/api/v2/spans', attributes)).body) as { localEndpoint: { serviceName: string }; tags: Record<string, string> }[];
    expect(zipkin[0]?.localEndpoint.serviceName).toBe('UserService');
  });

  test.each([
    ['otlp', '/v1/traces'],
    ['jaeger', '/v1/traces'],
    ['zipkin', '/api/v2/spans'],
  ] as const)('provider %s posts spans to its collector endpoint', async (provider, urlPath) => {
    const received = await exportOneSpan(provider, urlPath);
    expect(received.url).toBe(urlPath);
    expect(received.body).toContain('UserService/getUser');
    // Zipkin JSON carries the hex trace id; OTLP/JSON carries it too (hex, per the OTLP JSON mapping).
    expect(received.body).toContain(TRACE_ID);
  });
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** Exports one call's span through `provider` to a collector on loopback; resolves with the one request it received. */
async function exportOneSpan(provider: 'otlp' | 'jaeger' | 'zipkin', urlPath: string, spanAttributes?: string): Promise<{ url: string; body: string }> {
  const received: { url: string; body: string }[] = [];
  const collector = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('latin1')));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body });
      res.writeHead(provider === 'zipkin' ? 202 : 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const { port } = collector.address() as AddressInfo;
  try {
    // A plain Node child: the OTLP exporter's dynamic import() of node:http does not run inside jest's sandbox.
    const script = path.join(__dirname, 'fixtures', 'export-one-span.js');
    const args = [script, provider, `http://127.0.0.1:${port}${urlPath}`, TRACE_ID, ...(spanAttributes === undefined ? [] : [spanAttributes])];
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, args, { timeout: 20000 }, (error, out, err) => {
        if (error !== null) reject(new Error(`${error.message}\n${err}`));
        else resolve(out);
      });
    });
    expect(stdout).toBe('exported\n');
    expect(received).toHaveLength(1);
    return received[0]!;
  } finally {
    await new Promise((r) => collector.close(r));
  }
}
