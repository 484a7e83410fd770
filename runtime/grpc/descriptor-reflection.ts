/**
 * What server reflection needs of a generated service: its
 * `fileDescriptorProtos`, in the package-definition shape @grpc/reflection
 * indexes. Shared by the gRPC application and the gateway's gRPC transport.
 */
import type { PackageDefinition } from '@grpc/proto-loader';
import type { ServiceDescriptor } from './descriptor';
import { asBuffer } from './method-binding';

/** A package definition that carries `descriptor`'s files, or undefined when it has none. */
export function descriptorPackageDefinition(descriptor: ServiceDescriptor): PackageDefinition | undefined {
  const files = descriptor.fileDescriptorProtos;
  if (files === undefined || files.length === 0) return undefined;
  // @grpc/reflection reads only `fileDescriptorProtos`; the entry is never used as a message type.
  const entry = { format: 'Protocol Buffer 3 DescriptorProto', type: {}, fileDescriptorProtos: files.map(asBuffer) };
  return { [`${descriptor.typeName}#files`]: entry } as unknown as PackageDefinition;
}
