/**
 * The page's type registry for Any JSON (runtime/browser/any-json.ts): a
 * browser-messages file of a run that holds google/protobuf/any.proto ends
 * with one `registerMessageTypes({...})` naming each of its message types
 * (full proto name → ts-proto's message object), run when the page loads
 * the file. Loading a file loads its imports, so every type a page's
 * messages can reach is known before the first call.
 */

/** A message type of one file: `pkg.Outer.Inner` and ts-proto's `Outer_Inner`. */
export interface PackableType {
  typeName: string;
  exportName: string;
}

/**
 * `lines` with the registration of `types` appended.
 * @throws when ts-proto did not export a message object under the expected name
 */
export function withTypeRegistration(lines: readonly string[], types: readonly PackableType[]): string[] {
  if (types.length === 0) return [...lines];
  const exported = new Set(lines.map((line) => /^export const (\w+): MessageFns</.exec(line)?.[1]).filter((name) => name !== undefined));
  const entries = types.map(({ typeName, exportName }) => {
    if (!exported.has(exportName)) throw new Error(`fw-gen: ts-proto exported no message object ${exportName} for ${typeName}`);
    return `  ${JSON.stringify(typeName)}: ${exportName},`;
  });
  const out = [...lines];
  // ts-proto's text ends with a newline: the registration goes before it.
  const end = out[out.length - 1] === '' ? out.length - 1 : out.length;
  out.splice(end, 0, '', 'registerMessageTypes({', ...entries, '});');
  return out;
}
