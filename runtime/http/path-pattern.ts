/**
 * Path patterns (spec 4.3): static segments, `:name`, optional `:name?`, a
 * trailing `*`, and RegExp routes. A string pattern compiles to a list of
 * segment matchers walked with `indexOf('/')` — never to a regex, so matching
 * cannot backtrack. An optional parameter expands at compile time into the
 * variants with and without it.
 */

const enum SegmentKind { Literal, Param, Wildcard }

interface Segment {
  readonly kind: SegmentKind;
  /** Literal text (lower-cased when case-insensitive) or the parameter name. */
  readonly value: string;
}

/**
 * One step of matching a variant: a run of consecutive literal segments
 * (`/api/v1/users`, compared with one `startsWith`), a parameter, or the
 * trailing wildcard.
 */
interface Step {
  readonly kind: SegmentKind;
  /** For a literal run: its text with the leading slashes (lower-cased when case-insensitive). */
  readonly text: string;
}

/** A variant ready to match: its steps and the names its captures go to, in order. */
interface CompiledVariant {
  readonly steps: readonly Step[];
  readonly names: readonly string[];
}

/** How a pattern is matched: a whole route path, or a `use()` prefix ending at a segment boundary. */
export interface PatternOptions {
  caseSensitive: boolean;
  strict: boolean;
  prefix: boolean;
}

/** Raised for a pattern we refuse to guess about. */
export class PathPatternError extends Error {
  override readonly name = 'PathPatternError';
}

const PARAM_NAME = /^[A-Za-z_$][\w$]*$/;
const SLASH = 47;

// Matching is synchronous, so one scratch buffer serves every call.
const scratch: string[] = [];

/** A compiled path pattern. */
export class PathMatcher {
  /** Parameter names in capture order (`'*'` for the wildcard, `'0'`, `'1'`… for regexp groups). */
  readonly keys: string[];
  /** An equivalent RegExp, for `RouteInfo.regexp`. */
  readonly regexp: RegExp;
  /** The normalised path when the pattern has no parameters; used as the static-map key. */
  readonly staticPath: string | null;
  /**
   * The literal leading segments every match starts with (`/api/users` for
   * `/api/users/:id`), or null when the pattern starts with a parameter;
   * used to index dynamic routes.
   */
  readonly literalPrefix: string | null;
  /** True for a `use('/')` / `use(mw)` prefix, which matches every path. */
  readonly matchesAll: boolean;
  readonly #variants: CompiledVariant[];
  /** The variants without `literalPrefix`, for `matchAfterPrefix`. */
  readonly #afterPrefix: CompiledVariant[];
  readonly #userRegexp: RegExp | null;
  readonly #prefix: boolean;
  #lastVariant = 0;
  #lastExec: RegExpExecArray | null = null;

  constructor(pattern: string | RegExp, options: PatternOptions) {
    this.#prefix = options.prefix;
    if (pattern instanceof RegExp) {
      this.#userRegexp = pattern;
      this.#variants = [];
      this.#afterPrefix = [];
      this.regexp = pattern;
      this.keys = regexpKeys(pattern);
      this.staticPath = null;
      this.literalPrefix = null;
      this.matchesAll = false;
      return;
    }
    if (typeof pattern !== 'string') throw new PathPatternError(`A path must be a string or a RegExp, got ${typeof pattern}`);
    this.#userRegexp = null;
    const parsed = parsePattern(pattern, options);
    this.#variants = parsed.variants.map(compileVariant);
    this.keys = parsed.keys;
    this.regexp = toRegExp(parsed.variants, options);
    const only = parsed.variants.length === 1 ? parsed.variants[0]! : null;
    this.staticPath = only !== null && only.every((s) => s.kind === SegmentKind.Literal) && !options.prefix
      ? '/' + only.map((s) => s.value).join('/')
      : null;
    this.literalPrefix = commonLiteralPrefix(parsed.variants);
    const prefix = this.literalPrefix;
    this.#afterPrefix = prefix === null ? this.#variants : this.#variants.map((v) => withoutPrefix(v, prefix));
    this.matchesAll = options.prefix && parsed.variants.length === 1 && parsed.variants[0]!.length === 0;
  }

  /**
   * Matches `path` (mount-relative, starting with `/`); `lower` is `path`
   * lower-cased for case-insensitive literals. Returns the length of `path`
   * consumed, or -1. After a match, `captureParams` writes its parameters.
   */
  match(path: string, lower: string): number {
    if (this.#userRegexp !== null) return this.#matchRegexp(path);
    return this.#matchVariants(this.#variants, path, lower, 0);
  }

  /**
   * `match` for a path already known to start with `literalPrefix` at a
   * segment boundary — the router's lookup table proved it — so those
   * characters are not compared again.
   */
  matchAfterPrefix(path: string, lower: string): number {
    if (this.#userRegexp !== null) return this.#matchRegexp(path);
    return this.#matchVariants(this.#afterPrefix, path, lower, this.literalPrefix === null ? 0 : this.literalPrefix.length);
  }

  #matchVariants(variants: CompiledVariant[], path: string, lower: string, from: number): number {
    for (let v = 0; v < variants.length; v++) {
      const end = this.#matchVariant(variants[v]!, path, lower, from);
      if (end < 0) continue;
      this.#lastVariant = v;
      return end;
    }
    return -1;
  }

  /**
   * Writes the decoded parameters of the last successful `match` into
   * `params`; call it right after `match`. Throws a 400 error on a malformed
   * percent-escape.
   */
  captureParams(params: Record<string, string | undefined>): void {
    if (this.#userRegexp !== null) {
      captureGroups(this.#lastExec!, params);
      return;
    }
    const names = this.#variants[this.#lastVariant]!.names;
    for (let i = 0; i < names.length; i++) params[names[i]!] = decodeParam(scratch[i]!);
  }

  #matchVariant(variant: CompiledVariant, path: string, lower: string, from: number): number {
    const steps = variant.steps;
    let pos = from;
    let captured = 0;
    for (let s = 0; s < steps.length; s++) {
      const step = steps[s]!;
      if (step.kind === SegmentKind.Literal) {
        const text = step.text;
        if (!lower.startsWith(text, pos)) return -1;
        pos += text.length;
        // A literal run ends at a segment boundary: `/users` is not the start of `/users2`.
        if (pos !== path.length && path.charCodeAt(pos) !== SLASH) return -1;
        continue;
      }
      if (step.kind === SegmentKind.Wildcard) {
        scratch[captured++] = pos >= path.length ? '' : path.slice(pos + 1);
        return path.length;
      }
      if (path.charCodeAt(pos) !== SLASH) return -1;
      const start = pos + 1;
      let end = path.indexOf('/', start);
      if (end === -1) end = path.length;
      if (end === start) return -1;
      scratch[captured++] = path.slice(start, end);
      pos = end;
    }
    if (this.#prefix) return pos === path.length || path.charCodeAt(pos) === SLASH ? pos : -1;
    if (pos === path.length) return pos;
    // The root pattern `/` (no segments) matches the path `/`.
    return steps.length === 0 && from === 0 && path.length === 1 ? 1 : -1;
  }

  #matchRegexp(path: string): number {
    const re = this.#userRegexp!;
    re.lastIndex = 0;
    const m = re.exec(path);
    // A `use(regexp)` prefix must match from the start of the path, ending at a segment boundary.
    if (m === null || (this.#prefix && (m.index !== 0 || !isBoundary(path, m[0].length)))) return -1;
    this.#lastExec = m;
    return this.#prefix ? m[0].length : path.length;
  }
}

/** RegExp routes: numbered groups as `'0'`, `'1'`…, named groups by name. */
function captureGroups(m: RegExpExecArray, params: Record<string, string | undefined>): void {
  for (let i = 1; i < m.length; i++) params[i - 1] = m[i] === undefined ? undefined : decodeParam(m[i]!);
  if (m.groups !== undefined) for (const name of Object.keys(m.groups)) params[name] = m.groups[name];
}

function compileVariant(segments: Segment[]): CompiledVariant {
  const steps: Step[] = [];
  const names: string[] = [];
  let literal: string | null = null;
  for (const segment of segments) {
    if (segment.kind === SegmentKind.Literal) {
      literal = (literal ?? '') + '/' + segment.value;
      continue;
    }
    if (literal !== null) steps.push({ kind: SegmentKind.Literal, text: literal });
    literal = null;
    steps.push({ kind: segment.kind, text: '' });
    names.push(segment.kind === SegmentKind.Wildcard ? '*' : segment.value);
  }
  if (literal !== null) steps.push({ kind: SegmentKind.Literal, text: literal });
  return { steps, names };
}

/** `variant` without its first `prefix.length` characters, which every variant's first literal run starts with. */
function withoutPrefix(variant: CompiledVariant, prefix: string): CompiledVariant {
  const [first, ...rest] = variant.steps;
  if (first === undefined || first.kind !== SegmentKind.Literal || !first.text.startsWith(prefix)) {
    throw new Error(`internal: a variant does not start with its literal prefix ${prefix}`);
  }
  const steps = first.text.length === prefix.length ? rest : [{ kind: SegmentKind.Literal, text: first.text.slice(prefix.length) }, ...rest];
  return { steps, names: variant.names };
}

function isBoundary(path: string, end: number): boolean {
  return end === path.length || path.charCodeAt(end) === SLASH || (end > 0 && path.charCodeAt(end - 1) === SLASH);
}

function commonLiteralPrefix(variants: Segment[][]): string | null {
  const prefixes = variants.map((segments) => {
    const literals: string[] = [];
    for (const s of segments) {
      if (s.kind !== SegmentKind.Literal || s.value === '') break;
      literals.push(s.value);
    }
    return literals;
  });
  const common: string[] = [];
  for (let i = 0; prefixes.every((p) => i < p.length && p[i] === prefixes[0]![i]); i++) common.push(prefixes[0]![i]!);
  return common.length === 0 ? null : '/' + common.join('/');
}

/** Decodes one parameter value; a malformed escape is the client's fault (400). */
export function decodeParam(value: string): string {
  if (value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    const error = new URIError(`Failed to decode parameter '${value}'`) as URIError & { statusCode: number };
    error.statusCode = 400;
    throw error;
  }
}

interface ParsedPattern { variants: Segment[][]; keys: string[] }

function parsePattern(pattern: string, options: PatternOptions): ParsedPattern {
  let body = pattern;
  if (body === '*' || body === '/*') body = '/*';
  else if (body.length === 0 || body.charCodeAt(0) !== SLASH) body = '/' + body;
  // Without `strict`, `/users/` and `/users` are one route; a prefix never keeps its trailing slash.
  if ((!options.strict || options.prefix) && body.length > 1 && body.endsWith('/')) body = body.slice(0, -1);
  if (body === '/') return { variants: [[]], keys: [] };
  let variants: Segment[][] = [[]];
  const keys: string[] = [];
  const parts = body.slice(1).split('/');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '*') {
      if (i !== parts.length - 1) throw new PathPatternError(`'*' must be the last segment of a path: ${pattern}`);
      keys.push('*');
      variants = variants.map((v) => [...v, { kind: SegmentKind.Wildcard, value: '*' }]);
    } else if (part.startsWith(':')) {
      const optional = part.endsWith('?');
      const name = part.slice(1, optional ? -1 : undefined);
      if (!PARAM_NAME.test(name)) throw new PathPatternError(`Invalid parameter name '${name}' in path: ${pattern}`);
      if (keys.includes(name)) throw new PathPatternError(`Parameter '${name}' appears twice in path: ${pattern}`);
      keys.push(name);
      const segment: Segment = { kind: SegmentKind.Param, value: name };
      variants = optional ? variants.flatMap((v) => [[...v, segment], v]) : variants.map((v) => [...v, segment]);
    } else {
      if (/[:*()?]/.test(part)) throw new PathPatternError(`Unsupported path syntax '${part}' in ${pattern}; use ':name', ':name?', a final '*' or a RegExp`);
      const value = options.caseSensitive ? part : part.toLowerCase();
      variants = variants.map((v) => [...v, { kind: SegmentKind.Literal, value }]);
    }
  }
  if (variants.length > 64) throw new PathPatternError(`Too many optional parameters in path: ${pattern}`);
  return { variants, keys };
}

function regexpKeys(re: RegExp): string[] {
  const groups = new RegExp(`${re.source}|`).exec('')!.length - 1;
  return Array.from({ length: groups }, (_, i) => String(i));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function segmentSource(segment: Segment): string {
  if (segment.kind === SegmentKind.Literal) return `/${escapeRegExp(segment.value)}`;
  return segment.kind === SegmentKind.Param ? '/([^/]+)' : '(?:/(.*))?';
}

function toRegExp(variants: Segment[][], options: PatternOptions): RegExp {
  const alternatives = variants.map((segments) =>
    segments.map((s) => segmentSource(s)).join(''));
  const tail = options.prefix ? '(?=/|$)' : options.strict ? '$' : '/?$';
  const body = alternatives.length === 1 ? alternatives[0]! : `(?:${alternatives.join('|')})`;
  return new RegExp(`^${body || (options.prefix ? '' : '/')}${tail}`, options.caseSensitive ? '' : 'i');
}
