/**
 * grpc/health/v1/health.proto as a service descriptor: its file descriptor
 * built with @bufbuild/protobuf (so reflection describes it), and the two
 * messages' codecs from that file. No .proto file ships next to dist/, and
 * serving health loads neither proto-loader nor grpc-js.
 */
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from '@bufbuild/protobuf';
import { FieldDescriptorProto_Label, FieldDescriptorProto_Type, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { MessageCodec, MethodDescriptor, ServiceDescriptor } from '../rpc/descriptor';

/** Wire numbers of HealthCheckResponse.ServingStatus, by name. */
const STATUS_NUMBERS: Readonly<Record<string, number>> = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 };
const STATUS_NAMES = Object.keys(STATUS_NUMBERS);

const HEALTH_FILE = create(FileDescriptorProtoSchema, {
  name: 'grpc/health/v1/health.proto',
  package: 'grpc.health.v1',
  syntax: 'proto3',
  messageType: [
    { name: 'HealthCheckRequest', field: [{ name: 'service', jsonName: 'service', number: 1, label: FieldDescriptorProto_Label.OPTIONAL, type: FieldDescriptorProto_Type.STRING }] },
    {
      name: 'HealthCheckResponse',
      field: [{ name: 'status', jsonName: 'status', number: 1, label: FieldDescriptorProto_Label.OPTIONAL, type: FieldDescriptorProto_Type.ENUM, typeName: '.grpc.health.v1.HealthCheckResponse.ServingStatus' }],
      enumType: [{ name: 'ServingStatus', value: STATUS_NAMES.map((name) => ({ name, number: STATUS_NUMBERS[name] as number })) }],
    },
  ],
  service: [
    {
      name: 'Health',
      method: [
        { name: 'Check', inputType: '.grpc.health.v1.HealthCheckRequest', outputType: '.grpc.health.v1.HealthCheckResponse' },
        { name: 'Watch', inputType: '.grpc.health.v1.HealthCheckRequest', outputType: '.grpc.health.v1.HealthCheckResponse', serverStreaming: true },
      ],
    },
  ],
});

/** A health request: the service asked about (`''` for the whole server). */
export interface HealthCheckRequest {
  service: string;
}

/** A health answer, the status by name (`SERVING`, `NOT_SERVING`, `SERVICE_UNKNOWN`, `UNKNOWN`). */
export interface HealthCheckResponse {
  status: string;
}

const REGISTRY = createFileRegistry(HEALTH_FILE, () => undefined);

function messageOf(name: string): DescMessage {
  const message = REGISTRY.getMessage(`grpc.health.v1.${name}`);
  if (message === undefined) throw new Error(`health.proto lacks ${name}`);
  return message;
}

const REQUEST = messageOf('HealthCheckRequest');
const RESPONSE = messageOf('HealthCheckResponse');

const requestCodec: MessageCodec<HealthCheckRequest> = {
  encode: (message) => toBinary(REQUEST, create(REQUEST, { service: String(message.service ?? '') })),
  decode: (bytes) => ({ service: String((fromBinary(REQUEST, bytes) as unknown as HealthCheckRequest).service) }),
  fromJSON: (json) => ({ service: String((json as Partial<HealthCheckRequest> | null)?.service ?? '') }),
  toJSON: (message) => ({ service: message.service }),
};

const responseCodec: MessageCodec<HealthCheckResponse> = {
  encode: (message) => toBinary(RESPONSE, create(RESPONSE, { status: STATUS_NUMBERS[message.status] ?? 0 })),
  decode: (bytes) => ({ status: STATUS_NAMES[(fromBinary(RESPONSE, bytes) as unknown as { status: number }).status] ?? 'UNKNOWN' }),
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
  fileDescriptorProtos: [toBinary(FileDescriptorProtoSchema, HEALTH_FILE)],
};
