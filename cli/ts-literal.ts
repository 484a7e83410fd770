/**
 * Prints JSON-like values as formatted TypeScript literals (identifier keys
 * bare, strings single-quoted), deterministic for identical input.
 */
import type { Json } from './model';

const IDENT = /^[A-Za-z_$][\w$]*$/;

function quote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

/**
 * @param value the value to print
 * @param indent indentation of the line the literal starts on
 * @example tsLiteral({ a: [1, 'x'] }, '') // "{ a: [1, 'x'] }" (short values stay on one line)
 */
export function tsLiteral(value: Json | undefined, indent: string): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return quote(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((v) => tsLiteral(v, inner));
    const flat = `[${items.join(', ')}]`;
    if (flat.length + indent.length <= 100 && !flat.includes('\n')) return flat;
    return `[\n${items.map((i) => `${inner}${i},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const parts = entries.map(([k, v]) => `${IDENT.test(k) ? k : quote(k)}: ${tsLiteral(v, inner)}`);
  const flat = `{ ${parts.join(', ')} }`;
  if (flat.length + indent.length <= 100 && !flat.includes('\n')) return flat;
  return `{\n${parts.map((p) => `${inner}${p},`).join('\n')}\n${indent}}`;
}
