/**
 * `google.api.http` path templates (google/api/http.proto), parsed once and
 * matched segment by segment, never through a regex:
 *
 *     Template = "/" Segments [ Verb ] ;
 *     Segments = Segment { "/" Segment } ;
 *     Segment  = "*" | "**" | LITERAL | Variable ;
 *     Variable = "{" FieldPath [ "=" Segments ] "}" ;
 *     FieldPath = IDENT { "." IDENT } ;
 *     Verb     = ":" LITERAL ;
 *
 * `*` matches one segment, `**` zero or more (at most one per template: it
 * takes whatever the segments before and after it leave, as grpc-gateway
 * does, so matching stays linear), a variable captures exactly what its
 * sub-pattern matches (`{name}` is `{name=*}`). A single-segment capture is fully percent-decoded; a
 * multi-segment capture keeps `%2F` encoded so its `/`s stay unambiguous.
 * fw-gen uses the same parser to reject bad templates and colliding routes.
 */

type Segment = { readonly kind: 'literal'; readonly value: string } | { readonly kind: 'wildcard' } | { readonly kind: 'deep' };

/** A variable: the field it fills and the template segments it spans. */
export interface TemplateVariable {
  readonly fieldPath: string;
  readonly start: number;
  /** Exclusive end index into `segments`. */
  readonly end: number;
}

/** A parsed template. */
export interface PathTemplate {
  readonly source: string;
  readonly segments: readonly Segment[];
  readonly variables: readonly TemplateVariable[];
  readonly verb: string | undefined;
  /** What the template matches, variable names dropped: two templates with one shape collide. */
  readonly shape: string;
}

/** A template that breaks the grammar. */
export class PathTemplateError extends Error {
  override readonly name = 'PathTemplateError';
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Characters a literal segment or verb may not contain (they are syntax). */
const SYNTAX = new Set(['/', '{', '}', '*', '=', ':']);

class Scanner {
  pos = 0;
  constructor(readonly text: string) {}
  peek(): string | undefined {
    return this.text[this.pos];
  }
  fail(message: string): never {
    throw new PathTemplateError(`path template "${this.text}": ${message} at offset ${this.pos}`);
  }
  expect(char: string): void {
    if (this.text[this.pos] !== char) this.fail(`expected "${char}"`);
    this.pos++;
  }
  literal(what: string): string {
    const start = this.pos;
    while (this.pos < this.text.length && !SYNTAX.has(this.text[this.pos] as string)) this.pos++;
    if (this.pos === start) this.fail(`expected ${what}`);
    return this.text.slice(start, this.pos);
  }
}

/** Parses `template`; throws PathTemplateError naming what is wrong and where. */
export function parsePathTemplate(template: string): PathTemplate {
  if (typeof template !== 'string') throw new PathTemplateError('path template must be a string');
  const scan = new Scanner(template);
  const segments: Segment[] = [];
  const variables: TemplateVariable[] = [];
  scan.expect('/');
  const segmentList = (inVariable: boolean): void => {
    for (;;) {
      if (scan.peek() === '*') {
        scan.pos++;
        if (scan.peek() === '*') {
          scan.pos++;
          segments.push({ kind: 'deep' });
        } else segments.push({ kind: 'wildcard' });
      } else if (scan.peek() === '{') {
        if (inVariable) scan.fail('variables cannot nest');
        variable();
      } else segments.push({ kind: 'literal', value: scan.literal('a literal, "*", "**" or a {variable}') });
      if (scan.peek() !== '/') return;
      scan.pos++;
    }
  };
  const variable = (): void => {
    scan.expect('{');
    const start = scan.pos;
    while (scan.pos < template.length && scan.peek() !== '=' && scan.peek() !== '}') scan.pos++;
    const fieldPath = template.slice(start, scan.pos);
    if (!fieldPath.split('.').every((part) => IDENT.test(part))) scan.fail(`"${fieldPath}" is not a field path`);
    if (variables.some((v) => v.fieldPath === fieldPath)) scan.fail(`variable ${fieldPath} appears twice`);
    const first = segments.length;
    if (scan.peek() === '=') {
      scan.pos++;
      segmentList(true);
    } else segments.push({ kind: 'wildcard' });
    scan.expect('}');
    variables.push({ fieldPath, start: first, end: segments.length });
  };
  segmentList(false);
  let verb: string | undefined;
  if (scan.peek() === ':') {
    scan.pos++;
    verb = scan.literal('a verb after ":"');
  }
  if (scan.pos !== template.length) scan.fail('unexpected character');
  if (segments.filter((s) => s.kind === 'deep').length > 1) throw new PathTemplateError(`path template "${template}": at most one "**"`);
  const shape = '/' + segments.map((s) => (s.kind === 'literal' ? s.value : s.kind === 'wildcard' ? '*' : '**')).join('/') + (verb === undefined ? '' : `:${verb}`);
  return { source: template, segments, variables, verb, shape };
}

/** True when the template has no wildcard or variable: it matches one path, `source` itself. */
export function isLiteralTemplate(template: PathTemplate): boolean {
  return template.variables.length === 0 && template.segments.every((s) => s.kind === 'literal');
}

/** Decodes one captured segment; undefined when its percent-encoding is broken. */
function decodeSegment(part: string, keepSlash: boolean): string | undefined {
  try {
    return decodeURIComponent(keepSlash ? part.replace(/%2F/gi, '%252F') : part);
  } catch {
    return undefined;
  }
}

/**
 * Matches the path `parts` (split on `/`, empty parts dropped, the verb still
 * attached to the last part) against `template`: the variables' values, or
 * undefined when it does not match.
 */
export function matchPathTemplate(template: PathTemplate, parts: readonly string[]): Record<string, string> | undefined {
  let path = parts;
  if (template.verb !== undefined) {
    const last = parts[parts.length - 1];
    const suffix = `:${template.verb}`;
    if (last === undefined || !last.endsWith(suffix)) return undefined;
    const head = last.slice(0, -suffix.length);
    path = head === '' ? parts.slice(0, -1) : [...parts.slice(0, -1), head];
  }
  const { segments } = template;
  const deep = segments.findIndex((s) => s.kind === 'deep');
  if (deep === -1 ? path.length !== segments.length : path.length < segments.length - 1) return undefined;
  // Template boundary → path boundary: segments after `**` count from the end of the path.
  const at = (boundary: number): number => (deep === -1 || boundary <= deep ? boundary : path.length - (segments.length - boundary));
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as Segment;
    if (segment.kind === 'deep') continue;
    const part = path[at(i)] as string;
    if (segment.kind === 'literal' ? part !== segment.value : part === '') return undefined;
  }
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const variable of template.variables) {
    const captured = path.slice(at(variable.start), at(variable.end));
    const multi = variable.end - variable.start > 1 || (deep >= variable.start && deep < variable.end);
    const decoded: string[] = [];
    for (const part of captured) {
      const value = decodeSegment(part, multi);
      if (value === undefined) return undefined;
      decoded.push(value);
    }
    values[variable.fieldPath] = decoded.join('/');
  }
  return values;
}
