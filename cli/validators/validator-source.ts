/**
 * The pieces of TypeScript the rule compiler writes: literals of rule values,
 * the line that records a violation, constants hoisted to module level (lists,
 * byte strings, regular expressions), and the signal that a rule has no
 * compiled form (then its message keeps protovalidate's interpreter).
 */

import { isFieldSet, type DescMessage, type Message } from '@bufbuild/protobuf';

/** True when the rule field `localName` of `rules` is set (proto2: an unset field reads as its default). */
export function ruleSet(rules: Message, schema: DescMessage, localName: string): boolean {
  const field = schema.fields.find((f) => f.localName === localName);
  return field !== undefined && isFieldSet(rules, field);
}

/** A rule the compiler does not turn into code: the message that carries it is checked by protovalidate. */
export class NotCompiled extends Error {}

export function notCompiled(why: string): never {
  throw new NotCompiled(why);
}

/** A JavaScript literal of a rule value: bigint with `n`, NaN, ±Infinity and -0 spelled out. */
export function literal(value: number | bigint | boolean | string): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  if (Object.is(value, -0)) return '-0';
  return String(value);
}

/** Module-level constants of one generated file, deduplicated by their source text. */
export class Hoisted {
  readonly #names = new Map<string, string>();
  readonly #lines: string[] = [];

  /** The name of a `const` holding `expression`, declared once per file. */
  name(expression: string, hint: string): string {
    let name = this.#names.get(expression);
    if (name === undefined) {
      name = `${hint}${this.#names.size}`;
      this.#names.set(expression, name);
      this.#lines.push(`const ${name} = ${expression};`);
    }
    return name;
  }

  get lines(): readonly string[] {
    return this.#lines;
  }
}

/** Where a rule check writes: the value's expression, the path expression, and the hoisted constants. */
export interface RuleTarget {
  /** Expression of the value checked (a local: evaluated once). */
  readonly value: string;
  /** Expression of the violation's field path string. */
  readonly path: string;
  readonly hoisted: Hoisted;
}

/** `out.push(...)` of one violation; rule id and message are fixed at compile time. */
export function violation(path: string, rule: string, message: string): string {
  return `out.push({ field: ${path}, rule: ${JSON.stringify(rule)}, message: ${JSON.stringify(message)} });`;
}
