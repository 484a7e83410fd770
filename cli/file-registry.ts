/**
 * The model stage's registry over buf's descriptors. Files that
 * @bufbuild/protobuf already embeds (descriptor.proto: the largest file of
 * every image, needed only as the extendee of option extensions) are taken
 * from the runtime instead of being decoded and built a second time.
 */
import { createFileRegistry, type DescFile, type FileRegistry } from '@bufbuild/protobuf';
import { file_google_protobuf_descriptor, type FileDescriptorSet } from '@bufbuild/protobuf/wkt';

/** Proto paths of the files {@link registryOf} takes from the runtime; leave them out of the set. */
export const EMBEDDED_FILES: ReadonlySet<string> = new Set([file_google_protobuf_descriptor.proto.name]);

/**
 * Builds a registry of `set`'s files, resolving imports among them and, for
 * {@link EMBEDDED_FILES}, to the runtime's own descriptors.
 * @param set files in dependency order (as buf emits them), without {@link EMBEDDED_FILES}
 */
export function registryOf(set: FileDescriptorSet): FileRegistry {
  const built = new Map<string, DescFile>([[file_google_protobuf_descriptor.proto.name, file_google_protobuf_descriptor]]);
  const registries: FileRegistry[] = [];
  for (const proto of set.file) {
    if (built.has(proto.name)) continue;
    const registry = createFileRegistry(proto, (name) => built.get(name));
    const file = registry.getFile(proto.name);
    if (file !== undefined) built.set(proto.name, file);
    registries.push(registry);
  }
  return createFileRegistry(...registries);
}
