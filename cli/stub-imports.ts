/**
 * The stub merge's view of a stub's imports: every form TypeScript allows
 * (separate `import type` statements, inline `type` modifiers, namespace
 * imports, aliases, default imports, any order, comments, CRLF) read from the
 * syntax tree, and the text edits that make the needed names resolvable:
 * - a needed name already bound in any form is reused (its alias or `ns.Name`),
 *   and a name the stub imports from elsewhere is never bound a second time;
 * - a missing type goes into an existing import of its module (an `import type`
 *   first), else into a new `import type` line; a missing value never goes into
 *   an `import type`;
 * - a name its generated module no longer exports is dropped.
 * Edits touch import statements only, so nothing else in the stub moves.
 */
import type { ts as TsApi } from 'ts-morph';
import type { TextEdit } from './text-edits';

/** One `{ a, type b as c }` element. */
interface Specifier {
  /** The exported name. */
  name: string;
  /** The name it is bound to in the stub. */
  local: string;
  /** A type-only binding: `import type {…}` or an inline `type` modifier. */
  typeOnly: boolean;
  /** An inline `type` modifier (removable to make the binding a value). */
  inlineType: boolean;
  start: number;
  end: number;
  /** Where the name starts: the inline `type ` modifier is [start, nameStart). */
  nameStart: number;
}

/** One import statement of the stub. */
interface ImportStatement {
  module: string;
  typeOnly: boolean;
  /** `* as ns`. */
  namespace: string | undefined;
  /** `{ … }`: undefined when the statement has no braces. */
  named: { open: number; close: number; specifiers: Specifier[]; multiline: boolean; trailingComma: boolean } | undefined;
  /** The default import's end, when there is one. */
  defaultEnd: number | undefined;
  start: number;
  end: number;
}

/** A name the stub needs in scope. */
export interface NeededName {
  module: string;
  /** The exported name. */
  name: string;
  /** The name to bind when it must be added (differs from `name` when two modules export one name). */
  local: string;
  /** Used as a value (`new GrpcError`), not only in type positions. */
  value: boolean;
}

/** What the import section of a stub binds, and the edits it needs. */
export class StubImportSection {
  readonly #statements: ImportStatement[];
  readonly #text: string;
  readonly #nl: string;

  constructor(ts: typeof TsApi, source: TsApi.SourceFile, text: string, nl: string) {
    this.#text = text;
    this.#nl = nl;
    this.#statements = [];
    for (const st of source.statements) {
      if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
      const clause = st.importClause;
      const typeOnly = clause?.isTypeOnly === true;
      const bindings = clause?.namedBindings;
      let named: ImportStatement['named'];
      let namespace: string | undefined;
      if (bindings !== undefined && ts.isNamespaceImport(bindings)) namespace = bindings.name.text;
      if (bindings !== undefined && ts.isNamedImports(bindings)) {
        const specifiers = bindings.elements.map((el): Specifier => {
          const nameNode = el.propertyName ?? el.name;
          return {
            name: nameNode.text,
            local: el.name.text,
            typeOnly: typeOnly || el.isTypeOnly,
            inlineType: el.isTypeOnly,
            start: el.getStart(source),
            end: el.getEnd(),
            nameStart: nameNode.getStart(source),
          };
        });
        const open = bindings.getStart(source);
        const close = bindings.getEnd() - 1;
        const inner = text.slice(open + 1, close);
        named = {
          open,
          close,
          specifiers,
          multiline: inner.includes('\n'),
          trailingComma: bindings.elements.hasTrailingComma,
        };
      }
      this.#statements.push({
        module: st.moduleSpecifier.text,
        typeOnly,
        namespace,
        named,
        defaultEnd: clause?.name?.getEnd(),
        start: st.getStart(source),
        end: st.getEnd(),
      });
    }
  }

  /**
   * Every way the stub can write `name` of `module` in a type position: its
   * local bindings and `ns.name` for each namespace import. Empty when unbound.
   */
  references(module: string, name: string): string[] {
    const refs: string[] = [];
    for (const st of this.#statements) {
      if (st.module !== module) continue;
      for (const sp of st.named?.specifiers ?? []) if (sp.name === name) refs.push(sp.local);
      if (st.namespace !== undefined) refs.push(`${st.namespace}.${name}`);
    }
    return refs;
  }

  /**
   * True when some import binds the name `local` (of whatever module: the
   * stub's choice stands), leaving out the specifiers this merge removes: a
   * name whose module no longer exports it is bound anew where it now lives.
   */
  #binds(local: string, removed: ReadonlySet<Specifier>): boolean {
    return this.#statements.some((st) => st.namespace === local || st.named?.specifiers.some((sp) => sp.local === local && !removed.has(sp)) === true);
  }

  /** True when `local` is bound to `name` of `module` as a value. */
  #boundAsValue(module: string, name: string, local: string): boolean {
    return this.#statements.some((st) => st.module === module && st.named?.specifiers.some((sp) => sp.name === name && sp.local === local && !sp.typeOnly) === true);
  }

  /**
   * Edits that bind every needed name as `local` (reusing any existing binding
   * for types), and drop the names of `exportsOf(module)` that no longer exist.
   * @returns the names dropped, `module: name`, for a warning
   */
  edits(needed: readonly NeededName[], exportsOf: (module: string) => ReadonlySet<string> | undefined, out: TextEdit[]): string[] {
    const removed = new Set<Specifier>();
    const dropped: string[] = [];
    for (const st of this.#statements) {
      const exported = exportsOf(st.module);
      if (exported === undefined) continue;
      for (const sp of st.named?.specifiers ?? []) {
        if (exported.has(sp.name)) continue;
        removed.add(sp);
        dropped.push(sp.name === sp.local ? sp.name : `${sp.name} as ${sp.local}`);
      }
    }
    const addTypes = new Map<string, NeededName[]>();
    const addValues = new Map<string, NeededName[]>();
    const push = (map: Map<string, NeededName[]>, n: NeededName): void => {
      const list = map.get(n.module) ?? [];
      if (!list.some((x) => x.local === n.local)) list.push(n);
      map.set(n.module, list);
    };
    for (const n of needed) {
      if (!n.value) {
        if (this.references(n.module, n.name).length === 0 && !this.#binds(n.local, removed)) push(addTypes, n);
        continue;
      }
      if (this.#boundAsValue(n.module, n.name, n.local)) continue;
      const asType = this.#findSpecifier(n.module, n.name, n.local);
      // The name is taken by an import of something else: adding it would declare it twice.
      if (asType === undefined && this.#binds(n.local, removed)) continue;
      if (asType?.spec.inlineType === true) {
        // `{ type GrpcError }` → `{ GrpcError }`: the binding becomes a value.
        out.push({ at: asType.spec.start, end: asType.spec.nameStart, text: '' });
        continue;
      }
      if (asType !== undefined) removed.add(asType.spec);
      push(addValues, n);
    }
    for (const st of this.#statements) this.#removalEdits(st, removed, out);
    const pending: string[] = [];
    for (const [module, names] of addValues) this.#addEdits(module, names, false, removed, out, pending);
    for (const [module, names] of addTypes) this.#addEdits(module, names, true, removed, out, pending);
    if (pending.length > 0) {
      const last = this.#statements[this.#statements.length - 1];
      const at = last !== undefined ? last.end : 0;
      const text = last !== undefined ? this.#nl + pending.join(this.#nl) : pending.join(this.#nl) + this.#nl;
      out.push({ at, end: at, text });
    }
    return dropped;
  }

  #findSpecifier(module: string, name: string, local: string): { st: ImportStatement; spec: Specifier } | undefined {
    for (const st of this.#statements) {
      if (st.module !== module) continue;
      const spec = st.named?.specifiers.find((sp) => sp.name === name && sp.local === local);
      if (spec !== undefined) return { st, spec };
    }
    return undefined;
  }

  /** Removes `removed` specifiers of one statement; the whole statement when nothing is left. */
  #removalEdits(st: ImportStatement, removed: ReadonlySet<Specifier>, out: TextEdit[]): void {
    const named = st.named;
    if (named === undefined) return;
    const specs = named.specifiers;
    if (!specs.some((sp) => removed.has(sp))) return;
    const kept = specs.filter((sp) => !removed.has(sp));
    if (kept.length === 0) {
      if (st.defaultEnd !== undefined || st.namespace !== undefined) {
        // `import D, { X } from` keeps `import D from`.
        const from = st.defaultEnd ?? named.open;
        out.push({ at: from, end: named.close + 1, text: '' });
        return;
      }
      // The whole statement and its line break go.
      let end = st.end;
      if (this.#text.startsWith('\r\n', end)) end += 2;
      else if (this.#text.startsWith('\n', end)) end += 1;
      out.push({ at: st.start, end, text: '' });
      return;
    }
    // Runs of removed elements: cut up to the next kept element, or after the last kept one at the tail.
    let i = 0;
    while (i < specs.length) {
      if (!removed.has(specs[i] as Specifier)) {
        i += 1;
        continue;
      }
      let j = i;
      while (j + 1 < specs.length && removed.has(specs[j + 1] as Specifier)) j += 1;
      const next = specs[j + 1];
      if (next !== undefined) out.push({ at: (specs[i] as Specifier).start, end: next.start, text: '' });
      else out.push({ at: (specs[i - 1] as Specifier).end, end: (specs[j] as Specifier).end, text: '' });
      i = j + 1;
    }
  }

  /** Adds `names` to an import of `module` that can hold them, or queues a new statement. */
  #addEdits(module: string, names: NeededName[], types: boolean, removed: ReadonlySet<Specifier>, out: TextEdit[], pending: string[]): void {
    const sorted = [...names].sort((a, b) => (a.local < b.local ? -1 : a.local > b.local ? 1 : 0));
    const spec = (n: NeededName): string => (n.local === n.name ? n.name : `${n.name} as ${n.local}`);
    const holds = (st: ImportStatement): boolean =>
      st.module === module && st.named !== undefined && st.named.specifiers.some((sp) => !removed.has(sp)) && (types || !st.typeOnly);
    const target = (types ? this.#statements.find((st) => holds(st) && st.typeOnly) : undefined) ?? this.#statements.find(holds);
    if (target?.named === undefined) {
      const list = sorted.map(spec).join(', ');
      pending.push(`${types ? 'import type' : 'import'} { ${list} } from '${module}';`);
      return;
    }
    // In a value import a type gets an inline `type`, so the import stays valid under verbatimModuleSyntax.
    const texts = sorted.map((n) => (types && !target.typeOnly ? `type ${spec(n)}` : spec(n)));
    const named = target.named;
    const last = named.specifiers[named.specifiers.length - 1] as Specifier;
    if (named.multiline) {
      const lineStart = this.#text.lastIndexOf('\n', last.start) + 1;
      const indent = /^[ \t]*/.exec(this.#text.slice(lineStart, last.start))?.[0] ?? '';
      if (named.trailingComma) {
        const comma = this.#text.indexOf(',', last.end);
        out.push({ at: comma + 1, end: comma + 1, text: texts.map((t) => `${this.#nl}${indent}${t},`).join('') });
      } else {
        out.push({ at: last.end, end: last.end, text: texts.map((t) => `,${this.#nl}${indent}${t}`).join('') });
      }
      return;
    }
    out.push({ at: last.end, end: last.end, text: texts.map((t) => `, ${t}`).join('') });
  }
}
