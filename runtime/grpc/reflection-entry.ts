/**
 * A generated service's descriptors in the form reflection reads (fw's
 * reflection-service.ts, and @grpc/reflection before it): every
 * `fileDescriptorProtos` list found in a package definition is indexed.
 * Used by the gRPC server and by the gateway's gRPC transport.
 */
import type { PackageDefinition } from '@grpc/proto-loader';
import type { ServiceDescriptor } from '../rpc/descriptor';
import { asBuffer } from './method-binding';

/** A package-definition entry carrying `descriptor`'s files, or undefined when it has none. */
export function reflectionEntry(descriptor: ServiceDescriptor): PackageDefinition | undefined {
  const files = descriptor.fileDescriptorProtos;
  if (files === undefined || files.length === 0) return undefined;
  // Only `fileDescriptorProtos` is read; the entry is never used as a message type.
  const entry = { format: 'Protocol Buffer 3 DescriptorProto', type: {}, fileDescriptorProtos: files.map(asBuffer) };
  return { [`${descriptor.typeName}#files`]: entry } as unknown as PackageDefinition;
}
