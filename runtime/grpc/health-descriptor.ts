/**
 * grpc/health/v1/health.proto as a service descriptor: its two one-field
 * messages read and written with @bufbuild/protobuf's wire reader and
 * writer, and the file's descriptor embedded (as fw-gen embeds a user's) so
 * reflection describes it. No .proto file ships next to dist/, and serving
 * health loads neither proto-loader nor grpc-js, nor the descriptor
 * machinery (test/grpc/health-descriptor.test.ts checks both against
 * protobuf-es built from the embedded file).
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { MessageCodec, MethodDescriptor, ServiceDescriptor } from '../rpc/descriptor';

/** FileDescriptorProto of grpc/health/v1/health.proto (package grpc.health.v1: HealthCheckRequest, HealthCheckResponse with ServingStatus, Health with Check and server-streaming Watch). */
const HEALTH_FILE = Buffer.from(
  'ChtncnBjL2hlYWx0aC92MS9oZWFsdGgucHJvdG8SDmdycGMuaGVhbHRoLnYxIi4KEkhlYWx0aENoZWNrUmVxdWVzdBIYCgdzZXJ2aWNlGAEgASgJUgdzZXJ2aWNlIrEBChNIZWFsdGhDaGVja1Jlc3BvbnNlEkkKBnN0YXR1cxgBIAEoDjIxLmdycGMuaGVhbHRoLnYxLkhlYWx0aENoZWNrUmVzcG9uc2UuU2VydmluZ1N0YXR1c1IGc3RhdHVzIk8KDVNlcnZpbmdTdGF0dXMSCwoHVU5LTk9XThAAEgsKB1NFUlZJTkcQARIPCgtOT1RfU0VSVklORxACEhMKD1NFUlZJQ0VfVU5LTk9XThADMq4BCgZIZWFsdGgSUAoFQ2hlY2sSIi5ncnBjLmhlYWx0aC52MS5IZWFsdGhDaGVja1JlcXVlc3QaIy5ncnBjLmhlYWx0aC52MS5IZWFsdGhDaGVja1Jlc3BvbnNlElIKBVdhdGNoEiIuZ3JwYy5oZWFsdGgudjEuSGVhbHRoQ2hlY2tSZXF1ZXN0GiMuZ3JwYy5oZWFsdGgudjEuSGVhbHRoQ2hlY2tSZXNwb25zZTABYgZwcm90bzM=',
  'base64',
);

/** Wire numbers of HealthCheckResponse.ServingStatus, by name. */
const STATUS_NUMBERS: Readonly<Record<string, number>> = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 };
const STATUS_NAMES = Object.keys(STATUS_NUMBERS);

/** A health request: the service asked about (`''` for the whole server). */
export interface HealthCheckRequest {
  service: string;
}

/** A health answer, the status by name (`SERVING`, `NOT_SERVING`, `SERVICE_UNKNOWN`, `UNKNOWN`). */
export interface HealthCheckResponse {
  status: string;
}

/** Field 1 of a message (string or varint), unknown fields skipped. */
function readField1<T>(bytes: Uint8Array, read: (reader: BinaryReader) => T, empty: T): T {
  const reader = new BinaryReader(bytes);
  let value = empty;
  while (reader.pos < reader.len) {
    const [field, wire] = reader.tag();
    if (field === 1 && (wire === WireType.LengthDelimited || wire === WireType.Varint)) value = read(reader);
    else reader.skip(wire);
  }
  return value;
}

const requestCodec: MessageCodec<HealthCheckRequest> = {
  encode: (message) => {
    const service = String(message.service ?? '');
    return service === '' ? new Uint8Array(0) : new BinaryWriter().tag(1, WireType.LengthDelimited).string(service).finish();
  },
  decode: (bytes) => ({ service: readField1(bytes, (r) => r.string(), '') }),
  fromJSON: (json) => ({ service: String((json as Partial<HealthCheckRequest> | null)?.service ?? '') }),
  toJSON: (message) => ({ service: message.service }),
};

const responseCodec: MessageCodec<HealthCheckResponse> = {
  encode: (message) => {
    const status = STATUS_NUMBERS[message.status] ?? 0;
    return status === 0 ? new Uint8Array(0) : new BinaryWriter().tag(1, WireType.Varint).int32(status).finish();
  },
  decode: (bytes) => ({ status: STATUS_NAMES[readField1(bytes, (r) => r.int32(), 0)] ?? 'UNKNOWN' }),
  fromJSON: (json) => ({ status: String((json as Partial<HealthCheckResponse> | null)?.status ?? 'UNKNOWN') }),
  toJSON: (message) => ({ status: message.status }),
};

function method(name: 'Check' | 'Watch', streaming: 'none' | 'server'): MethodDescriptor<HealthCheckRequest, HealthCheckResponse> {
  return {
    name,
    localName: name === 'Check' ? 'check' : 'watch',
    path: `/grpc.health.v1.Health/${name}`,
    streaming,
    requestType: 'grpc.health.v1.HealthCheckRequest',
    responseType: 'grpc.health.v1.HealthCheckResponse',
    requestCodec,
    responseCodec,
    http: [],
  };
}

/** The descriptor of `grpc.health.v1.Health`. */
export const HEALTH_DESCRIPTOR: ServiceDescriptor = {
  typeName: 'grpc.health.v1.Health',
  name: 'Health',
  packageName: 'grpc.health.v1',
  methods: { check: method('Check', 'none'), watch: method('Watch', 'server') } as Record<string, MethodDescriptor>,
  fileDescriptorProtos: [HEALTH_FILE],
};
