/**
 * Which generated methods are side-effect free (`option idempotency_level =
 * NO_SIDE_EFFECTS;`), read from the descriptor's embedded
 * FileDescriptorProtos. Only those may be called with a Connect GET (the
 * Connect spec's rule); inline services have no proto and never allow GET.
 * @bufbuild/protobuf loads on the first GET, not with the gateway.
 */
import type { MethodDescriptor, ServiceDescriptor } from '../../rpc/descriptor';

const cache = new WeakMap<ServiceDescriptor, ReadonlySet<string>>();

/** Proto method names (`GetUser`) of `service` marked NO_SIDE_EFFECTS. */
function sideEffectFree(service: ServiceDescriptor): ReadonlySet<string> {
  const known = cache.get(service);
  if (known !== undefined) return known;
  const names = new Set<string>();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { fromBinary } = require('@bufbuild/protobuf') as typeof import('@bufbuild/protobuf');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const wkt = require('@bufbuild/protobuf/wkt') as typeof import('@bufbuild/protobuf/wkt');
  for (const bytes of service.fileDescriptorProtos ?? []) {
    const file = fromBinary(wkt.FileDescriptorProtoSchema, bytes);
    if ((file.package ?? '') !== service.packageName) continue;
    for (const s of file.service) {
      if (s.name !== service.name) continue;
      for (const m of s.method) {
        if (m.options?.idempotencyLevel === wkt.MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS) names.add(m.name);
      }
    }
  }
  cache.set(service, names);
  return names;
}

/** True when the method may be called with GET. */
export function allowsGet(service: ServiceDescriptor | undefined, method: MethodDescriptor | undefined): boolean {
  if (service === undefined || method === undefined) return false;
  return sideEffectFree(service).has(method.name);
}
