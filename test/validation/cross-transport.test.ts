/**
 * The validation table (support/probe-cases.ts) over every transport: HTTP,
 * WebSocket (json and msgpack), TCP frames, UDP datagrams, gRPC+JSON and
 * binary gRPC through the gateway, and binary gRPC against a plain
 * `server.grpc()`. Each case must get the same verdict everywhere: accepted,
 * or refused with VALIDATION_ERROR / INVALID_ARGUMENT naming the same first
 * field path and rule id. Cases the JSON mapping refuses cannot be written in
 * protobuf, so the binary transports run the rest.
 */
import { fromJson, toBinary } from '@bufbuild/protobuf';
import { ProtocolGateway, server } from 'fw';
import type { GrpcApplication } from 'fw/grpc';
import { schemaSetOf } from '../../runtime/validation/schema-registry';
import { HOST } from '../gateway/support/clients';
import { Verdict as VerdictMessage } from './generated/probe';
import { ProbeServiceDescriptor, type ProbeServiceHandlers } from './generated/probe.fw';
import { CASES, requestOf, type ProbeCase } from './support/probe-cases';
import { grpcDriver, httpDriver, tcpDriver, udpDriver, wsDriver, type ProbeDriver, type Verdict } from './support/probe-drivers';

export const probeHandlers: ProbeServiceHandlers = {
  async check(request) {
    return { ok: true, name: request.name, items: request.age };
  },
  async checkStream(requests) {
    let items = 0;
    for await (const request of requests) if (request.name !== '') items += 1;
    return { ok: true, name: '', items };
  },
};

const schema = (() => {
  const set = schemaSetOf(ProbeServiceDescriptor.fileDescriptorProtos ?? []);
  const probe = set?.registry.getMessage('probe.v1.Probe');
  if (probe === undefined) throw new Error('probe.v1.Probe missing from the embedded descriptors');
  return probe;
})();

/** The case as protobuf, or undefined when the JSON mapping refuses it (no binary form exists). */
function binaryOf(json: unknown): Uint8Array | undefined {
  try {
    return toBinary(schema, fromJson(schema, json as never));
  } catch {
    return undefined;
  }
}

function summary(verdict: Verdict): string {
  if (verdict.ok) return 'valid';
  const first = verdict.violations[0];
  return `${verdict.code} ${first?.field ?? '?'} ${first?.rule ?? '?'}`;
}

describe('validation: the same verdict on every transport', () => {
  const gateway = new ProtocolGateway({});
  let grpcApp: GrpcApplication;
  let jsonDrivers: ProbeDriver[] = [];
  let binaryDrivers: ProbeDriver[] = [];

  beforeAll(async () => {
    gateway.addService(ProbeServiceDescriptor, probeHandlers);
    const address = await gateway.listen(0, HOST);
    const port = address.port as number;
    grpcApp = server.grpc();
    grpcApp.addService(ProbeServiceDescriptor, probeHandlers);
    const plain = await grpcApp.listen(0, HOST);
    const decode = (b: Buffer): unknown => VerdictMessage.toJSON(VerdictMessage.decode(b));
    jsonDrivers = [httpDriver(port), await wsDriver(port), await wsDriver(port, 'msgpack'), await tcpDriver(port), udpDriver(address.udpPort as number), grpcDriver(port, 'json', decode)];
    binaryDrivers = [grpcDriver(port, 'binary', decode), { ...grpcDriver(plain.port, 'binary', decode), name: 'server.grpc()' }];
    // Warm every path once (connections, protovalidate's first compile), so a loaded machine does not time out the first case.
    const base = requestOf({ name: 'warm-up', patch: {}, expect: 'valid' });
    const bytes = binaryOf(base);
    for (const d of [...jsonDrivers, ...binaryDrivers]) await d.send(JSON.stringify(base), bytes);
  }, 60_000);

  afterAll(async () => {
    for (const d of [...jsonDrivers, ...binaryDrivers]) d.close();
    await gateway.close();
    await grpcApp.close();
  });

  it('has at least 60 cases, valid and invalid ones in every category', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
    expect(CASES.filter((c) => c.expect === 'valid').length).toBeGreaterThanOrEqual(20);
    expect(CASES.filter((c) => c.expect !== 'valid').length).toBeGreaterThanOrEqual(30);
  });

  it.each(CASES.map((c) => [c.name, c] as [string, ProbeCase]))('%s', async (_name, c) => {
    const json = requestOf(c);
    const text = JSON.stringify(json);
    const bytes = binaryOf(json);
    const drivers = bytes === undefined ? jsonDrivers : [...jsonDrivers, ...binaryDrivers];
    const verdicts = await Promise.all(drivers.map(async (d) => [d.name, await d.send(text, bytes)] as const));
    for (const [name, verdict] of verdicts) {
      const where = `${name}: ${summary(verdict)}`;
      if (c.expect === 'valid') {
        expect({ where, ok: verdict.ok }).toEqual({ where, ok: true });
        continue;
      }
      expect({ where, ok: verdict.ok }).toEqual({ where, ok: false });
      if (verdict.ok) continue;
      const [field, rule] = c.expect;
      const first = verdict.violations[0];
      expect({ where, code: verdict.code, field: first?.field, rule: first?.rule.startsWith(rule) ? rule : first?.rule }).toEqual({ where, code: 'VALIDATION_ERROR', field, rule });
      if (name.startsWith('grpc') || name === 'server.grpc()') expect({ where, status: verdict.status }).toEqual({ where, status: 3 });
    }
    // Every transport of the same kind agrees on the whole violation list, not only the first.
    const lists = verdicts.map(([, verdict]) => JSON.stringify(verdict.ok ? [] : verdict.violations.map((v) => [v.field, v.rule])));
    expect(new Set(lists).size).toBe(1);
  });
});
