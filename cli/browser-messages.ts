/**
 * The browser client's messages, `x.browser-messages.ts`, derived from
 * ts-proto's `x.ts`: the same types and JSON functions with each message's
 * `encode`/`decode` members and the wire import dropped. The JSON-only browser
 * client never calls the binary codec, and bundlers cannot drop it from
 * ts-proto's message objects. Derived from the text rather than by a second
 * ts-proto run (`outputEncodeMethods=false`), which doubled fw-gen's time.
 * ts-proto's output is dprint-formatted, so a member of a message object (and
 * of the `MessageFns` interface) starts a line, indented by two spaces (four
 * when a long declaration wraps the literal), and a method ends at the first
 * line holding only `},` at that indentation. The well-known types whose
 * JSON ts-proto writes in a form of its own get canonical JSON
 * (browser-well-known-json.ts), and so do enums (browser-enum-json.ts).
 * A run that holds google/protobuf/any.proto keeps the binary codec: an Any's
 * JSON is the JSON of the message its bytes hold, so every message type is
 * registered for packing (browser-type-registration.ts).
 */
import { enumNumbersKept } from './browser-enum-json';
import { withTypeRegistration, type PackableType } from './browser-type-registration';
import { canonicalWellKnownJson } from './browser-well-known-json';

/** What `x.ts` becomes: `x.browser-messages.ts`. */
export const BROWSER_MESSAGES_SUFFIX = '.browser-messages';

const BINARY_MEMBER = /^( {2,})(?:encode|decode)\(/;
const WIRE_IMPORT = /^import .* from "(?:fw\/protobuf-wire|@bufbuild\/protobuf\/wire)";$/;
const RELATIVE_IMPORT = /( from ")(\.\.?\/[^"]*)(";)$/;
const TOP_LEVEL_FUNCTION = /^function (\w+)\(/;

/** `user.ts` → `user.browser-messages.ts`. */
export function browserMessagesPath(tsProtoFile: string): string {
  return `${tsProtoFile.replace(/\.ts$/, '')}${BROWSER_MESSAGES_SUFFIX}.ts`;
}

/** Points a relative import of another generated message file at its browser counterpart. */
function browserImport(line: string, importSuffix: string): string {
  return line.replace(RELATIVE_IMPORT, (_all, from: string, spec: string, end: string) => {
    const bare = importSuffix !== '' && spec.endsWith(importSuffix) ? spec.slice(0, -importSuffix.length) : spec;
    return `${from}${bare}${BROWSER_MESSAGES_SUFFIX}${importSuffix}${end}`;
  });
}

/**
 * `x.browser-messages.ts` from the text of ts-proto's `x.ts`.
 * @param packable the file's message types when the run packs Any: the binary codec stays and they are registered
 * @throws when a binary member has no end where formatting puts it (ts-proto's layout changed)
 */
export function browserMessages(tsProtoSource: string, importSuffix: string, packable?: readonly PackableType[]): string {
  const lines = tsProtoSource.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (packable !== undefined) {
      out.push(browserImport(line, importSuffix));
      continue;
    }
    if (WIRE_IMPORT.test(line)) continue;
    const member = BINARY_MEMBER.exec(line);
    if (member === null) {
      out.push(browserImport(line, importSuffix));
      continue;
    }
    // An interface member is one line; a method runs to its closing `},` (and the blank line after it).
    if (line.endsWith(';')) continue;
    const start = i;
    const closing = `${member[1] as string}},`;
    while (i < lines.length && lines[i] !== closing) i++;
    if (i === lines.length) throw new Error(`fw-gen: no end of the ts-proto member at line ${start + 1}: ${line.trim()}`);
    if (lines[i + 1] === '') i++;
  }
  const registered = packable === undefined ? out : withTypeRegistration(out, packable);
  return withoutUnusedHelpers(canonicalWellKnownJson(enumNumbersKept(registered))).join('\n');
}

/** Drops top-level helper functions only the binary codec called (`longToNumber`, …), so `noUnusedLocals` projects compile it. */
function withoutUnusedHelpers(lines: string[]): string[] {
  let current = lines;
  // Each pass may free helpers the dropped ones called; a few passes suffice.
  for (let pass = 0; pass < 8; pass++) {
    const text = current.join('\n');
    const next: string[] = [];
    for (let i = 0; i < current.length; i++) {
      const name = TOP_LEVEL_FUNCTION.exec(current[i] as string)?.[1];
      const end = name === undefined ? -1 : current.indexOf('}', i);
      if (name === undefined || end === -1 || (text.match(new RegExp(`\\b${name}\\b`, 'g')) ?? []).length > 1) {
        next.push(current[i] as string);
        continue;
      }
      i = current[end + 1] === '' ? end + 1 : end;
    }
    if (next.length === current.length) return next;
    current = next;
  }
  return current;
}
