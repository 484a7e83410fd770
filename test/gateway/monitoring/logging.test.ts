import { createMonitoring } from '../../../runtime/gateway/monitoring';
import { FakeGrpcError, lineCollector, makeCall, makeContext, run } from './call-helpers';

describe('gateway call logging', () => {
  test('one JSON line per call on every protocol, with exactly the asked fields', async () => {
    const { stream, lines } = lineCollector();
    const fields = ['timestamp', 'protocol', 'service', 'method', 'client_id', 'duration', 'status'] as const;
    const m = createMonitoring({ logging: { level: 'info', format: 'json', fields: [...fields], destination: stream } });
    const protocols = ['http', 'websocket', 'grpc', 'udp', 'tcp'] as const;
    const contexts = protocols.map((p) => makeContext(p));
    for (const ctx of contexts) await run(m.interceptor, makeCall(ctx.protocol, 'UserService', 'getUser', 'none', ctx), async () => 1);
    await m.flush();
    expect(lines).toHaveLength(5);
    lines.forEach((line, i) => {
      expect(Object.keys(line).sort()).toEqual([...fields].sort());
      expect(line).toMatchObject({ protocol: protocols[i], service: 'UserService', method: 'getUser', client_id: contexts[i]?.client.id, status: 'OK' });
      expect(typeof line.duration).toBe('number');
      expect(new Date(line.timestamp as string).toISOString()).toBe(line.timestamp);
    });
  });

  test('a subset of fields gives only that subset; failures carry their status', async () => {
    const { stream, lines } = lineCollector();
    const m = createMonitoring({ logging: { format: 'json', fields: ['method', 'status'], destination: stream } });
    await expect(run(m.interceptor, makeCall('grpc', 'S', 'getUser'), async () => { throw new FakeGrpcError(16, 'no token'); })).rejects.toThrow();
    await m.flush();
    expect(lines).toEqual([{ method: 'getUser', status: 'UNAUTHENTICATED' }]);
  });

  test('level filters: at warn only failed calls are logged', async () => {
    const { stream, lines } = lineCollector();
    const m = createMonitoring({ logging: { level: 'warn', fields: ['status', 'trace_id', 'error'], destination: stream } });
    await run(m.interceptor, makeCall('http', 'S', 'm'), async () => 1);
    const ctx = makeContext('http', { tracing: { traceId: 'abc' } });
    await expect(run(m.interceptor, makeCall('http', 'S', 'm', 'none', ctx), async () => { throw new Error('kaput'); })).rejects.toThrow();
    await m.flush();
    expect(lines).toEqual([{ status: 'INTERNAL', trace_id: 'abc', error: 'kaput' }]);
  });
});
