/**
 * Stage 5 for stubs: merges the model into an existing `x.service.ts`.
 * The syntax tree only locates things; every change is a text edit at a known
 * range, so untouched bytes (bodies, comments, formatting) stay identical:
 * - a new RPC is appended to its class as an UNIMPLEMENTED stub;
 * - a changed request/response type or streaming kind rewrites that part of
 *   the signature only; the body is kept;
 * - a handler whose RPC is gone is reported, never deleted;
 * - imports are merged by kind (stub-imports.ts): names a signature needs are
 *   added, names the generated modules no longer export are dropped.
 * The merge of its own output changes nothing, so `fw-gen` then `--check` is clean.
 * ts-morph is loaded lazily (~0.5 s): only when the quick text check fails.
 */
import type { ClassDeclaration, MethodDeclaration, SourceFile } from 'ts-morph';
import type { FileModel, MethodModel, ServiceModel, TsTypeRef } from './model';
import { jsdoc, renderStubMethod } from './render';
import { StubImportSection, type NeededName } from './stub-imports';
import { streamingWords, stubSignature, writtenStreaming, type SignatureTypes } from './stub-signature';
import { applyEdits, type TextEdit } from './text-edits';

/** Result of a merge. */
export interface MergeResult {
  /** The merged text (identical to the input when nothing changed). */
  text: string;
  /** One line per orphaned handler, changed streaming kind or dropped import. */
  warnings: string[];
}

/** Specifiers the stub imports from, resolved by the caller. */
export interface StubImports {
  fwModule: string;
  moduleOf(stem: string): string;
  /** The names a generated module exports, by specifier; undefined for modules fw-gen does not generate. */
  exportsOf(specifier: string): ReadonlySet<string> | undefined;
}

/** Where the stub template takes `RequestContext` and the UNIMPLEMENTED error from. */
const RUNTIME_MODULE = 'fw';
const GRPC_MODULE = 'fw/grpc';

const MEMBER_RE = /^([ \t]+)(?:(?:public|protected|static|override|readonly)\s+)*(?:async\s+)?(?:\*\s*)?([A-Za-z_$][\w$]*)\s*\(/gm;
const IMPORT_LINE = /^[ \t]*import\b/gm;
const IMPORT_CLAUSE = /^[ \t]*import\s+(type\s+)?([^;'"]*?)\s*from\s*(['"])([^'"]+)\3/gm;

/** The names each module's plainly written imports bind, or undefined when an import is written in a way this scan does not read. */
function plainImports(text: string): Map<string, Set<string>> | undefined {
  const bound = new Map<string, Set<string>>();
  let statements = 0;
  for (const m of text.matchAll(IMPORT_CLAUSE)) {
    statements += 1;
    const clause = m[2] as string;
    if (clause.includes('/') || clause.includes('*')) return undefined;
    const names = bound.get(m[4] as string) ?? new Set<string>();
    const braces = /\{([^}]*)\}/.exec(clause);
    for (const part of braces?.[1]?.split(',') ?? []) {
      const words = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/);
      if ((words[0] ?? '') === '') continue;
      if (words.length > 1) return undefined;
      names.add(words[0] as string);
    }
    bound.set(m[4] as string, names);
  }
  return statements === [...text.matchAll(IMPORT_LINE)].length ? bound : undefined;
}

/** The names every signature of `file` needs, in the form a new stub writes them. */
function neededTypes(file: FileModel, imports: StubImports): NeededName[] {
  const refs: TsTypeRef[] = file.services.flatMap((s) => s.methods.flatMap((m) => [m.request, m.response]));
  return [
    { module: RUNTIME_MODULE, name: 'RequestContext', local: 'RequestContext', value: false },
    ...file.services.map((s) => ({ module: imports.fwModule, name: `${s.name}Handlers`, local: `${s.name}Handlers`, value: false })),
    ...refs.map((r) => ({ module: imports.moduleOf(r.module), name: r.exportName, local: r.localName, value: false })),
  ];
}

/** Quick path: the text already is what a merge would produce (plain imports, exact signatures, no extra method). */
function upToDate(text: string, file: FileModel, imports: StubImports): boolean {
  const bound = plainImports(text);
  if (bound === undefined) return false;
  for (const [module, names] of bound) {
    const exported = imports.exportsOf(module);
    if (exported !== undefined && [...names].some((n) => !exported.has(n))) return false;
  }
  const boundAnywhere = new Set([...bound.values()].flatMap((names) => [...names]));
  if (neededTypes(file, imports).some((n) => !boundAnywhere.has(n.local))) return false;
  const expected = new Set<string>();
  for (const s of file.services) {
    if (!text.includes(`class ${s.name}Impl implements ${s.name}Handlers`)) return false;
    for (const m of s.methods) {
      if (!text.includes(stubSignature(m).text)) return false;
      expected.add(m.localName);
    }
  }
  const firstSig = file.services[0]?.methods[0];
  const sigAt = firstSig === undefined ? -1 : text.indexOf(stubSignature(firstSig).text);
  const memberIndent = sigAt < 0 ? undefined : text.slice(text.lastIndexOf('\n', sigAt) + 1, sigAt);
  for (const match of text.matchAll(MEMBER_RE)) {
    // Only lines at class-member indentation can declare handlers.
    if (memberIndent !== undefined && match[1] !== memberIndent) continue;
    const name = match[2] as string;
    if (!expected.has(name) && name !== 'constructor' && !['if', 'for', 'while', 'switch', 'catch', 'return', 'function'].includes(name)) return false;
  }
  return true;
}

function detectIndent(cls: ClassDeclaration, text: string): string {
  const first = cls.getMembers()[0];
  if (first !== undefined) {
    const lineStart = text.lastIndexOf('\n', first.getStart()) + 1;
    const ws = text.slice(lineStart, first.getStart());
    if (/^[ \t]+$/.test(ws)) return ws;
  }
  return '  ';
}

function findClass(sf: SourceFile, service: ServiceModel): ClassDeclaration | undefined {
  const iface = `${service.name}Handlers`;
  return (
    sf.getClasses().find((c) => c.getImplements().some((i) => i.getExpression().getText() === iface)) ?? sf.getClass(`${service.name}Impl`)
  );
}

const squeeze = (s: string): string => s.replace(/\s+/g, '');

/** How the stub can write a message type: its existing references, or the name a new import binds. */
class TypeNames {
  constructor(
    private readonly section: StubImportSection,
    private readonly imports: StubImports,
  ) {}

  all(ref: TsTypeRef): string[] {
    const refs = this.section.references(this.imports.moduleOf(ref.module), ref.exportName);
    return refs.length > 0 ? refs : [ref.localName];
  }

  /** The reference a rewritten or new signature uses: the import name when bound, else the stub's own. */
  preferred(ref: TsTypeRef): string {
    const refs = this.all(ref);
    return refs.includes(ref.localName) ? ref.localName : (refs[0] as string);
  }

  of(m: MethodModel): SignatureTypes {
    return { request: this.preferred(m.request), response: this.preferred(m.response) };
  }
}

/** Rewrites a handler's signature to the model's; returns the streaming mode its old signature had. */
function signatureEdits(method: MethodDeclaration, model: MethodModel, names: TypeNames, edits: TextEdit[]): MethodModel['streaming'] {
  const sig = stubSignature(model, names.of(model));
  const wantsGenerator = sig.prefix.includes('*');
  const node = method.compilerNode;
  const written = writtenStreaming(node.asteriskToken !== undefined, method.getParameters()[0]?.getTypeNode()?.getText());
  const nameStart = method.getNameNode().getStart();
  const asterisk = node.asteriskToken;
  if (wantsGenerator && asterisk === undefined) edits.push({ at: nameStart, end: nameStart, text: '*' });
  if (!wantsGenerator && asterisk !== undefined) edits.push({ at: asterisk.getStart(), end: asterisk.getEnd(), text: '' });
  if (!method.isAsync()) {
    const at = asterisk !== undefined ? asterisk.getStart() : nameStart;
    edits.push({ at, end: at, text: 'async ' });
  }
  // Any way the stub already names the types (alias, namespace, spacing) is kept.
  const accepts = (written: string, shapes: (t: string) => string, ref: TsTypeRef): boolean =>
    names.all(ref).some((t) => squeeze(shapes(t)) === squeeze(written));
  const streamIn = model.streaming === 'client' || model.streaming === 'bidirectional';
  const streamOut = model.streaming === 'server' || model.streaming === 'bidirectional';
  const typeNode = method.getParameters()[0]?.getTypeNode();
  if (typeNode !== undefined && !accepts(typeNode.getText(), (t) => (streamIn ? `AsyncIterable<${t}>` : t), model.request)) {
    edits.push({ at: typeNode.getStart(), end: typeNode.getEnd(), text: sig.paramType });
  }
  const ret = method.getReturnTypeNode();
  if (ret !== undefined && !accepts(ret.getText(), (t) => (streamOut ? `AsyncGenerator<${t}, void>` : `Promise<${t}>`), model.response)) {
    edits.push({ at: ret.getStart(), end: ret.getEnd(), text: sig.returnType });
  }
  return written;
}

/**
 * Merges `file`'s services into the stub `text`.
 * @param stubName the stub's display path, for warnings
 */
export function mergeStub(text: string, file: FileModel, imports: StubImports, stubName: string): MergeResult {
  if (upToDate(text, file, imports)) return { text, warnings: [] };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Project, ts } = require('ts-morph') as typeof import('ts-morph');
  const project = new Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true, compilerOptions: { noLib: true } });
  const sf = project.createSourceFile('stub.ts', text);
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const section = new StubImportSection(ts, sf.compilerNode, text, nl);
  const names = new TypeNames(section, imports);
  const edits: TextEdit[] = [];
  const warnings: string[] = [];
  let appended = false;
  for (const service of file.services) {
    const cls = findClass(sf, service);
    if (cls === undefined) {
      const indent = '  ';
      const body = service.methods.map((m) => renderStubMethod(m, indent, names.of(m))).join('\n\n');
      const doc = jsdoc(service.comment ?? `Handlers of ${service.typeName}.`, '').split('\n').join(nl);
      const added = `${nl}${doc}export class ${service.name}Impl implements ${service.name}Handlers {${nl}${body.split('\n').join(nl)}${nl}}${nl}`;
      edits.push({ at: text.length, end: text.length, text: added });
      appended = true;
      continue;
    }
    const indent = detectIndent(cls, text);
    const wanted = new Map(service.methods.map((m) => [m.localName, m]));
    for (const method of cls.getMethods()) {
      const model = wanted.get(method.getName());
      if (model !== undefined) {
        const written = signatureEdits(method, model, names, edits);
        if (written !== model.streaming) {
          warnings.push(
            `fw-gen: ${stubName}: ${cls.getName() ?? service.name}.${method.getName()} is now ${streamingWords(model.streaming)} (was ${streamingWords(written)}); its signature changed, rewrite the body`,
          );
        }
      } else if (!method.hasModifier('private') && !method.getName().startsWith('#')) {
        warnings.push(`fw-gen: ${stubName}: ${cls.getName() ?? service.name}.${method.getName()} handles no RPC of ${service.typeName} any more; kept`);
      }
    }
    const existing = new Set(cls.getMethods().map((m) => m.getName()));
    const missing = service.methods.filter((m) => !existing.has(m.localName));
    if (missing.length > 0) {
      appended = true;
      const members = cls.getMembers();
      const lastMember = members[members.length - 1];
      const added = missing.map((m) => renderStubMethod(m, indent, names.of(m)).split('\n').join(nl)).join(nl + nl);
      if (lastMember !== undefined) edits.push({ at: lastMember.getEnd(), end: lastMember.getEnd(), text: nl + nl + added });
      else {
        const open = text.indexOf('{', cls.getNameNode()?.getEnd() ?? cls.getStart());
        edits.push({ at: open + 1, end: open + 1, text: nl + added });
      }
    }
  }
  // New UNIMPLEMENTED bodies throw GrpcError(GrpcStatus…): values, not types.
  const values: NeededName[] = appended
    ? ['GrpcError', 'GrpcStatus'].map((n) => ({ module: GRPC_MODULE, name: n, local: n, value: true }))
    : [];
  const dropped = section.edits([...values, ...neededTypes(file, imports)], imports.exportsOf, edits);
  if (dropped.length > 0) warnings.push(`fw-gen: ${stubName}: dropped imports the generated code no longer exports: ${dropped.join(', ')}`);
  return { text: applyEdits(text, edits), warnings };
}
