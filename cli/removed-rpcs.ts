/**
 * RPCs present in an older image of the user's protos and absent now, with
 * where their service now is (or the file that held it), for the breaking
 * check: a client still calling one gets UNIMPLEMENTED, and the stub still has
 * its handler.
 */
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { handlerName } from './handler-name';

/** One removed RPC. */
export interface RemovedRpc {
  /** Root-relative proto path where the service is now (or was). */
  file: string;
  line: number;
  column: number;
  /** Fully-qualified service name: `greet.Greeter`. */
  service: string;
  method: string;
  /** The stub's method name for it. */
  handler: string;
}

const SERVICE_FIELD = 6;

function userFiles(bytes: Uint8Array, names: ReadonlySet<string>): FileDescriptorProto[] {
  return fromBinary(FileDescriptorSetSchema, bytes).file.filter((f) => names.has(f.name));
}

function qualified(file: FileDescriptorProto, service: string): string {
  return file.package === '' ? service : `${file.package}.${service}`;
}

/** Where service `index` of `file` is declared (1-based), from its source info. */
function serviceLocation(file: FileDescriptorProto, index: number): { line: number; column: number } {
  const loc = file.sourceCodeInfo?.location.find((l) => l.path.length === 2 && l.path[0] === SERVICE_FIELD && l.path[1] === index);
  return { line: (loc?.span[0] ?? 0) + 1, column: (loc?.span[1] ?? 0) + 1 };
}

/** RPCs of `before` (encoded descriptor set or buf image) that `after` no longer has, among `names`. */
export function removedRpcs(before: Uint8Array, after: Uint8Array, names: ReadonlySet<string>): RemovedRpc[] {
  const now = userFiles(after, names);
  const present = new Set<string>();
  const serviceAt = new Map<string, { file: string; line: number; column: number }>();
  for (const f of now) {
    f.service.forEach((s, i) => {
      serviceAt.set(qualified(f, s.name), { file: f.name, ...serviceLocation(f, i) });
      for (const m of s.method) present.add(`${qualified(f, s.name)}/${m.name}`);
    });
  }
  const removed: RemovedRpc[] = [];
  for (const f of userFiles(before, names)) {
    for (const s of f.service) {
      const service = qualified(f, s.name);
      for (const m of s.method) {
        if (present.has(`${service}/${m.name}`)) continue;
        const where = serviceAt.get(service) ?? { file: f.name, line: 1, column: 1 };
        removed.push({ ...where, service, method: m.name, handler: handlerName(m.name) });
      }
    }
  }
  return removed;
}
