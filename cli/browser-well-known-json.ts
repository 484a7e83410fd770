/**
 * The browser messages' JSON of the well-known types ts-proto writes in a
 * form of its own, made canonical proto3 JSON (what @bufbuild/protobuf's
 * `toJson` writes and `fromJson` reads) by pointing them at fw/browser's
 * helpers (runtime/browser/well-known-json.ts):
 * - a Timestamp field's JSON goes through ts-proto's own `Timestamp.toJSON`
 *   and `fromJSON` (RFC 3339 with nanoseconds) instead of a `Date`, which
 *   keeps milliseconds and gives pre-1970 fractions negative nanos;
 * - `Duration` is `"1.5s"`, not `{seconds, nanos}`;
 * - `FieldMask` paths are lowerCamelCase in JSON;
 * - a `BytesValue` field is base64, not the bytes' indexes;
 * - `Any` is `{"@type", ...}` (runtime/browser/any-json.ts), which needs the
 *   binary codec of the packed type: only a run that keeps it holds any.proto.
 * Works on the text of the derived file (see browser-messages.ts for the
 * layout it relies on); Struct and the other types are left as ts-proto
 * writes them.
 */

const FILE_NAME = /^export const protobufFileName = "([^"]+)";$/m;

/** Members of a well-known type's own message object replaced by one call each. */
const OWN_MEMBERS: Record<string, ReadonlyArray<readonly [string, string]>> = {
  'google/protobuf/any.proto': [
    ['  fromJSON(object: any): Any {', '    return anyFromJson(object);'],
    ['  toJSON(message: Any): unknown {', '    return anyToJson(message);'],
  ],
  'google/protobuf/duration.proto': [
    ['  fromJSON(object: any): Duration {', '    return durationFromJson(object);'],
    ['  toJSON(message: Duration): unknown {', '    return durationToJson(message);'],
  ],
  'google/protobuf/field_mask.proto': [
    ['  fromJSON(object: any): FieldMask {', '    return { paths: fieldMaskFromJson(object) };'],
    ['  toJSON(message: FieldMask): string {', '    return fieldMaskToJson(message.paths);'],
  ],
};

const HELPERS = ['anyFromJson', 'anyToJson', 'registerMessageTypes', 'durationFromJson', 'durationToJson', 'fieldMaskFromJson', 'fieldMaskToJson', 'bytesFromJson', 'bytesToJson'];

/** `lines` of one derived browser-messages file, with canonical JSON for the types above. */
export function canonicalWellKnownJson(lines: readonly string[]): string[] {
  const fileName = FILE_NAME.exec(lines.join('\n'))?.[1] ?? '';
  let out = replaceMembers([...lines], OWN_MEMBERS[fileName] ?? []);
  out = out.map((line) => line.replace(/fromTimestamp\(([\w.]+)\)\.toISOString\(\)/g, 'Timestamp.toJSON($1)').replace(/(?<!function )\bfromJsonTimestamp\(/g, 'Timestamp.fromJSON('));
  // The helpers ts-proto wrote for Date conversion are unused now (withoutUnusedHelpers drops the functions; this is their constant).
  out = out.filter((line) => !line.startsWith('const timestampFractionRegex = '));
  out = bytesValueJson(out);
  return withHelperImport(out);
}

/** Replaces the body of each named member (up to its closing `  },`) with one statement. */
function replaceMembers(lines: string[], members: ReadonlyArray<readonly [string, string]>): string[] {
  for (const [signature, body] of members) {
    const start = lines.indexOf(signature);
    if (start === -1) throw new Error(`fw-gen: ts-proto's well-known type member changed: ${signature.trim()}`);
    const end = lines.indexOf('  },', start);
    if (end === -1) throw new Error(`fw-gen: no end of the ts-proto member ${signature.trim()}`);
    lines.splice(start + 1, end - start - 1, body);
  }
  return lines;
}

/**
 * BytesValue fields: ts-proto reads them with `new Uint8Array(json)` and
 * writes the bytes as they are (regular bytes fields use base64 helpers,
 * so these two forms mark a BytesValue).
 */
function bytesValueJson(lines: string[]): string[] {
  const text = lines.join('\n');
  const singular = new Set([...text.matchAll(/\? new Uint8Array\(object\.(\w+)\)/g)].map((m) => m[1] as string));
  const repeated = new Set([...text.matchAll(/\? object\.(\w+)\.map\(\(e: any\) => new Uint8Array\(e\)\)/g)].map((m) => m[1] as string));
  if (singular.size === 0 && repeated.size === 0) return lines;
  return lines.map((line) => {
    const write = /^(\s+)obj\.(\w+) = message\.(\w+);$/.exec(line);
    if (write !== null && write[2] === write[3]) {
      const name = write[2] as string;
      if (singular.has(name)) return `${write[1] as string}obj.${name} = bytesToJson(message.${name});`;
      if (repeated.has(name)) return `${write[1] as string}obj.${name} = message.${name}.map((e) => bytesToJson(e));`;
    }
    return line.replace(/\? new Uint8Array\(object\.(\w+)\)/g, '? bytesFromJson(object.$1)').replace(/\(e: any\) => new Uint8Array\(e\)/g, '(e: any) => bytesFromJson(e)');
  });
}

/** Imports the fw/browser helpers the file now calls, after ts-proto's eslint line. */
function withHelperImport(lines: string[]): string[] {
  const text = lines.join('\n');
  const used = HELPERS.filter((name) => new RegExp(`\\b${name}\\(`).test(text));
  if (used.length === 0) return lines;
  const at = lines.indexOf('/* eslint-disable */');
  const out = [...lines];
  out.splice(at + 1, 0, `import { ${used.join(', ')} } from "fw/browser";`);
  return out;
}
