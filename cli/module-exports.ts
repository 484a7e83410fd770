/**
 * The names a generated TypeScript module exports, read from its text: the
 * stub merge drops imports of names that are gone. Generated code declares
 * every export at the start of a line, so a line scan is exact for it.
 */

const DECLARED = /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:const|let|var|function\*?|async\s+function\*?|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm;
const LISTED = /^export\s+(?:type\s+)?\{([^}]*)\}/gm;

/** Exported names of a generated module's source. */
export function exportedNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(DECLARED)) names.add(m[1] as string);
  for (const m of source.matchAll(LISTED)) {
    for (const part of (m[1] as string).split(',')) {
      const words = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/);
      const exported = (words[1] ?? words[0] ?? '').trim();
      if (exported !== '') names.add(exported);
    }
  }
  return names;
}
