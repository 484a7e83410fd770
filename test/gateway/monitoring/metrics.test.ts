import { createMonitoring, MonitoringConfigError } from '../../../runtime/gateway/monitoring';
import { drain, FakeGrpcError, FakeServiceError, makeCall, makeContext, run } from './call-helpers';

describe('gateway metrics', () => {
  test('a known mix of calls on every protocol gives exact counts, error rates and status labels', async () => {
    const m = createMonitoring({ metrics: { enabled: true } });
    const ok = async () => ({ ok: true });
    for (let i = 0; i < 3; i++) await run(m.interceptor, makeCall('http', 'UserService', 'getUser'), ok);
    await expect(run(m.interceptor, makeCall('http', 'UserService', 'getUser'), async () => { throw new FakeServiceError('USER_NOT_FOUND', 'no such user', 404); })).rejects.toThrow('no such user');
    for (let i = 0; i < 2; i++) await run(m.interceptor, makeCall('websocket', 'UserService', 'createUser'), ok);
    await run(m.interceptor, makeCall('grpc', 'UserService', 'getUser'), ok);
    await expect(run(m.interceptor, makeCall('grpc', 'UserService', 'getUser'), async () => { throw new FakeGrpcError(5, 'missing'); })).rejects.toThrow('missing');
    await run(m.interceptor, makeCall('udp', 'UserService', 'getUser'), ok);
    await expect(run(m.interceptor, makeCall('tcp', 'UserService', 'deleteUser'), async () => { throw new Error('boom'); })).rejects.toThrow('boom');

    const metrics = m.getMetrics();
    expect(metrics.requests_total).toEqual({ http: 4, websocket: 2, grpc: 2, udp: 1, tcp: 1 });
    for (const p of ['http', 'websocket', 'grpc', 'udp', 'tcp'] as const) {
      expect(typeof metrics.avg_response_time[p]).toBe('number');
      expect(metrics.avg_response_time[p]).toBeGreaterThanOrEqual(0);
    }
    expect(metrics.error_rate).toEqual({ http: 0.25, websocket: 0, grpc: 0.5, udp: 0, tcp: 1 });
    expect(metrics.request_duration?.http.count).toBe(4);
    expect(metrics.throughput?.http).toBeGreaterThan(0);
    expect(metrics.protocol_metrics?.http?.status_codes).toEqual({ '200': 3, '404': 1 });
    expect(metrics.protocol_metrics?.http?.user_agents).toEqual({ 'test-agent/1.0': 4 });
    expect(metrics.protocol_metrics?.grpc?.rpc_latency?.['UserService/getUser']?.count).toBe(2);

    const text = await m.metricsText();
    expect(m.metricsContentType).toMatch(/^text\/plain/);
    expect(text).toContain('fw_gateway_requests_total{protocol="http",service="UserService",method="getUser",status="OK"} 3');
    expect(text).toContain('fw_gateway_requests_total{protocol="http",service="UserService",method="getUser",status="USER_NOT_FOUND"} 1');
    expect(text).toContain('fw_gateway_requests_total{protocol="grpc",service="UserService",method="getUser",status="NOT_FOUND"} 1');
    expect(text).toContain('fw_gateway_requests_total{protocol="tcp",service="UserService",method="deleteUser",status="INTERNAL"} 1');
    expect(text).toContain('fw_gateway_request_duration_seconds_count{protocol="websocket",service="UserService",method="createUser",status="OK"} 2');
    expect(text).toContain('fw_gateway_http_responses_total{status_code="404"} 1');
    // Averages and rates are PromQL's to compute: none is exported as a gauge.
    for (const gone of ['avg_response_time_ms', 'error_rate', 'throughput_requests_per_second', 'errors_total', 'grpc_rpc_latency_seconds', 'websocket_messages_per_second']) expect(text).not.toContain(`fw_gateway_${gone}`);
    expect(text).toContain('fw_gateway_request_duration_seconds_count{protocol="grpc",service="UserService",method="getUser",status="NOT_FOUND"} 1');
    await m.close();
  });

  test('two gateways keep separate registries', async () => {
    const a = createMonitoring();
    const b = createMonitoring();
    await run(a.interceptor, makeCall('http', 'S', 'm'), async () => 1);
    expect(a.getMetrics().requests_total.http).toBe(1);
    expect(b.getMetrics().requests_total.http).toBe(0);
    expect(await b.metricsText()).not.toContain('status="OK"');
  });

  test('streaming calls are recorded when their stream ends, fails or is abandoned', async () => {
    const m = createMonitoring({ metrics: { protocolMetrics: { grpc: ['stream_count'] } } });
    async function* three() { yield 1; yield 2; yield 3; }
    const result = await run(m.interceptor, makeCall('grpc', 'S', 'list', 'server'), () => three());
    expect(m.getMetrics().requests_total.grpc).toBe(0);
    expect(m.getMetrics().protocol_metrics?.grpc?.stream_count).toEqual({ active: 1, total: 1 });
    expect(await drain(result)).toEqual([1, 2, 3]);
    expect(m.getMetrics().requests_total.grpc).toBe(1);
    expect(m.getMetrics().protocol_metrics?.grpc?.stream_count).toEqual({ active: 0, total: 1 });

    async function* failing() { yield 1; throw new FakeGrpcError(14, 'gone'); }
    const failed = await run(m.interceptor, makeCall('grpc', 'S', 'list', 'server'), () => failing());
    await expect(drain(failed)).rejects.toThrow('gone');

    let finalized = false;
    async function* endless() { try { for (let i = 0; i < 1000; i++) yield i; } finally { finalized = true; } }
    const abandoned = (await run(m.interceptor, makeCall('grpc', 'S', 'list', 'bidirectional'), () => endless())) as AsyncIterable<number>;
    for await (const item of abandoned) if (item === 2) break;
    expect(finalized).toBe(true);

    const metrics = m.getMetrics();
    expect(metrics.requests_total.grpc).toBe(3);
    expect(metrics.error_rate?.grpc).toBeCloseTo(2 / 3);
    const text = await m.metricsText();
    expect(text).toContain('method="list",status="UNAVAILABLE"} 1');
    expect(text).toContain('method="list",status="CANCELLED"} 1');
    expect(text).toContain('fw_gateway_grpc_streams_total 3');
  });

  test('transport events feed connection, message, packet and buffer metrics', async () => {
    const m = createMonitoring();
    m.onEvent({ type: 'connection-open', protocol: 'websocket', connectionId: 'w1' });
    m.onEvent({ type: 'connection-open', protocol: 'websocket', connectionId: 'w2' });
    m.onEvent({ type: 'connection-close', protocol: 'websocket', connectionId: 'w1', durationMs: 1500 });
    m.onEvent({ type: 'message', protocol: 'websocket', direction: 'in', bytes: 10, connectionId: 'w2' });
    m.onEvent({ type: 'message', protocol: 'websocket', direction: 'out', bytes: 20, connectionId: 'w2' });
    for (let i = 0; i < 4; i++) m.onEvent({ type: 'message', protocol: 'udp', direction: 'in', bytes: 100 });
    for (let i = 0; i < 3; i++) m.onEvent({ type: 'message', protocol: 'udp', direction: 'out', bytes: 200 });
    m.onEvent({ type: 'connection-open', protocol: 'tcp', connectionId: 't1' });
    m.onEvent({ type: 'connection-open', protocol: 'tcp', connectionId: 't2' });
    m.onEvent({ type: 'buffer', protocol: 'tcp', connectionId: 't1', bufferedBytes: 50, limitBytes: 100 });
    m.onEvent({ type: 'buffer', protocol: 'tcp', connectionId: 't2', bufferedBytes: 10, limitBytes: 100 });
    m.onEvent({ type: 'connection-close', protocol: 'tcp', connectionId: 't2', durationMs: 10 });

    const metrics = m.getMetrics();
    expect(metrics.active_connections).toEqual({ http: 0, websocket: 1, grpc: 0, udp: 0, tcp: 1 });
    const pm = metrics.protocol_metrics;
    expect(pm?.websocket?.connection_duration).toMatchObject({ count: 1, avg_ms: 1500, max_ms: 1500 });
    expect(pm?.websocket?.message_frequency).toMatchObject({ messages_in: 1, messages_out: 1 });
    expect(pm?.websocket?.message_frequency?.per_second).toBeGreaterThan(0);
    expect(pm?.udp?.packet_loss).toEqual({ packets_in: 4, packets_out: 3, lost: 1, ratio: 0.25 });
    expect(pm?.udp?.packet_size).toEqual({ count: 7, avg_bytes: 1000 / 7, max_bytes: 200 });
    expect(pm?.tcp?.connection_pool).toEqual({ active: 1, opened: 2, closed: 1 });
    expect(pm?.tcp?.buffer_utilization).toEqual({ current: 0.5, max: 0.5 });

    const text = await m.metricsText();
    expect(text).toContain('fw_gateway_active_connections{protocol="websocket"} 1');
    expect(text).toContain('fw_gateway_websocket_connection_duration_seconds_count 1');
    expect(text).toContain('fw_gateway_bytes_total{protocol="udp",direction="in"} 400');
    expect(text).toContain('fw_gateway_udp_packets_lost_total 1');
    expect(text).toContain('fw_gateway_active_connections{protocol="tcp"} 1');
    expect(text).toContain('fw_gateway_connections_opened_total{protocol="tcp"} 2');
    expect(text).toContain('fw_gateway_connections_closed_total{protocol="tcp"} 1');
    expect(text).toContain('fw_gateway_messages_total{protocol="websocket",direction="in"} 1');
    expect(text).not.toContain('fw_gateway_tcp_connections');
    expect(text).toContain('fw_gateway_tcp_buffer_utilization_ratio_count 2');
  });

  test('only the configured collectors and protocol metrics appear', async () => {
    const m = createMonitoring({ metrics: { collectors: ['request_count'], protocolMetrics: { http: ['status_codes'] } } });
    await run(m.interceptor, makeCall('http', 'S', 'm'), async () => 1);
    const metrics = m.getMetrics();
    expect(Object.keys(metrics).sort()).toEqual(['avg_response_time', 'protocol_metrics', 'requests_total']);
    expect(metrics.protocol_metrics).toEqual({ http: { status_codes: { '200': 1 } } });
    const text = await m.metricsText();
    expect(text).not.toContain('fw_gateway_request_duration_seconds');
    expect(text).not.toContain('fw_gateway_messages_total');
  });

  test('metrics.enabled false counts nothing but still passes results through', async () => {
    const m = createMonitoring({ metrics: { enabled: false } });
    await expect(run(m.interceptor, makeCall('http', 'S', 'm', 'none', makeContext('http')), async () => 7)).resolves.toBe(7);
    expect(m.getMetrics().requests_total.http).toBe(0);
  });

  test('unknown collectors, protocol metrics, providers, formats and fields are refused with the key named', () => {
    expect(() => createMonitoring({ metrics: { collectors: ['nope' as never] } })).toThrow(/metrics\.collectors: unknown collector "nope"/);
    expect(() => createMonitoring({ metrics: { protocolMetrics: { http: ['latency' as never] } } })).toThrow(/metrics\.protocolMetrics\.http: unknown metric "latency"/);
    expect(() => createMonitoring({ metrics: { protocolMetrics: { smtp: [] } as never } })).toThrow(/unknown protocol "smtp"/);
    expect(() => createMonitoring({ tracing: { enabled: true, provider: 'datadog' as never } })).toThrow(/tracing\.provider: unknown provider "datadog"/);
    expect(() => createMonitoring({ logging: { format: 'text' as never } })).toThrow(/logging\.format/);
    expect(() => createMonitoring({ logging: { fields: ['user' as never] } })).toThrow(MonitoringConfigError);
  });
});
