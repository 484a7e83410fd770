/**
 * The health service's embedded file descriptor and its hand-laid codecs
 * agree with protobuf-es built from that file: the file describes
 * grpc.health.v1 (two messages, the ServingStatus enum, Check and a
 * server-streaming Watch), and bytes written by either side read back the
 * same on the other.
 */
import { create, createFileRegistry, fromBinary, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { HEALTH_DESCRIPTOR } from '../../runtime/grpc/health-descriptor';

const file = fromBinary(FileDescriptorProtoSchema, (HEALTH_DESCRIPTOR.fileDescriptorProtos ?? [])[0] as Uint8Array);
const registry = createFileRegistry(file, () => undefined);
const request = registry.getMessage('grpc.health.v1.HealthCheckRequest');
const response = registry.getMessage('grpc.health.v1.HealthCheckResponse');
const check = HEALTH_DESCRIPTOR.methods.check;

describe('health descriptor', () => {
  it('embeds grpc/health/v1/health.proto', () => {
    expect(file.name).toBe('grpc/health/v1/health.proto');
    expect(file.package).toBe('grpc.health.v1');
    expect(file.service.map((s) => [s.name, s.method.map((m) => `${m.name}:${m.serverStreaming ? 'stream' : 'unary'}`)])).toEqual([['Health', ['Check:unary', 'Watch:stream']]]);
    expect(registry.getEnum('grpc.health.v1.HealthCheckResponse.ServingStatus')?.values.map((v) => `${v.name}=${v.number}`)).toEqual(['UNKNOWN=0', 'SERVING=1', 'NOT_SERVING=2', 'SERVICE_UNKNOWN=3']);
    expect(HEALTH_DESCRIPTOR.methods.watch?.streaming).toBe('server');
  });

  it('reads and writes requests as protobuf-es does', () => {
    if (request === undefined || check === undefined) throw new Error('missing');
    for (const service of ['', 'user.UserService', 'ü-naïve']) {
      const ours = check.requestCodec.encode({ service });
      expect((fromBinary(request, ours) as unknown as { service: string }).service).toBe(service);
      expect(check.requestCodec.decode(toBinary(request, create(request, { service })))).toEqual({ service });
    }
  });

  it('reads and writes responses as protobuf-es does, skipping unknown fields', () => {
    if (response === undefined || check === undefined) throw new Error('missing');
    for (const [name, number] of [['UNKNOWN', 0], ['SERVING', 1], ['NOT_SERVING', 2], ['SERVICE_UNKNOWN', 3]] as const) {
      const ours = check.responseCodec.encode({ status: name });
      expect((fromBinary(response, ours) as unknown as { status: number }).status).toBe(number);
      expect(check.responseCodec.decode(toBinary(response, create(response, { status: number })))).toEqual({ status: name });
    }
    // Field 2 (varint 7) before field 1: skipped.
    expect(check.responseCodec.decode(new Uint8Array([0x10, 0x07, 0x08, 0x02]))).toEqual({ status: 'NOT_SERVING' });
  });
});
