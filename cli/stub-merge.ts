/**
 * Stage 5 for stubs: merges the model into an existing `x.service.ts`.
 * ts-morph only locates things; every change is a text edit at a known range,
 * so untouched bytes (bodies, comments, formatting) stay identical:
 * - a new RPC is appended to its class as an UNIMPLEMENTED stub;
 * - a changed request/response type or streaming kind rewrites that part of
 *   the signature only; the body is kept;
 * - a handler whose RPC is gone is reported, never deleted.
 * ts-morph is loaded lazily (~0.5 s): only when the quick text check fails.
 */
import type { ClassDeclaration, MethodDeclaration, SourceFile } from 'ts-morph';
import type { FileModel, MethodModel, ServiceModel, TsTypeRef } from './model';
import { jsdoc, renderStubMethod } from './render';
import { streamingWords, stubSignature, writtenStreaming } from './stub-signature';

/** Result of a merge. */
export interface MergeResult {
  /** The merged text (identical to the input when nothing changed). */
  text: string;
  /** One line per orphaned handler. */
  warnings: string[];
}

interface Edit {
  at: number;
  end: number;
  text: string;
}

/** Specifiers the stub imports from, resolved by the caller. */
export interface StubImports {
  fwModule: string;
  moduleOf(stem: string): string;
}

const MEMBER_RE = /^([ \t]+)(?:(?:public|protected|static|override|readonly)\s+)*(?:async\s+)?(?:\*\s*)?([A-Za-z_$][\w$]*)\s*\(/gm;

/** Quick path: every expected signature is present and no extra method exists. */
function upToDate(text: string, file: FileModel): boolean {
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

/** Rewrites a handler's signature to the model's; returns the streaming mode its old signature had. */
function signatureEdits(method: MethodDeclaration, model: MethodModel, edits: Edit[]): MethodModel['streaming'] {
  const sig = stubSignature(model);
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
  const first = method.getParameters()[0];
  const typeNode = first?.getTypeNode();
  if (typeNode !== undefined && typeNode.getText() !== sig.paramType) edits.push({ at: typeNode.getStart(), end: typeNode.getEnd(), text: sig.paramType });
  const ret = method.getReturnTypeNode();
  if (ret !== undefined && ret.getText() !== sig.returnType) edits.push({ at: ret.getStart(), end: ret.getEnd(), text: sig.returnType });
  return written;
}

function importEdits(sf: SourceFile, file: FileModel, imports: StubImports, edits: Edit[], nl: string): void {
  const wanted = new Map<string, TsTypeRef[]>();
  for (const r of file.imports) {
    const mod = imports.moduleOf(r.module);
    wanted.set(mod, [...(wanted.get(mod) ?? []), r]);
  }
  const handlerNames = file.services.map((s) => `${s.name}Handlers`);
  const decls = sf.getImportDeclarations();
  const pending: string[] = [];
  const addNames = (mod: string, specs: { name: string; text: string }[]): void => {
    const decl = decls.find((d) => d.getModuleSpecifierValue() === mod);
    const named = decl?.getNamedImports() ?? [];
    const have = new Set(named.map((n) => (n.getAliasNode() ?? n.getNameNode()).getText()));
    const missing = specs.filter((s) => !have.has(s.name));
    if (missing.length === 0) return;
    const last = named[named.length - 1];
    if (decl !== undefined && last !== undefined) {
      edits.push({ at: last.getEnd(), end: last.getEnd(), text: missing.map((m) => `, ${m.text}`).join('') });
    } else {
      pending.push(`import type { ${missing.map((m) => m.text).join(', ')} } from '${mod}';`);
    }
  };
  for (const [mod, refs] of [...wanted.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    addNames(
      mod,
      refs.map((r) => ({ name: r.localName, text: r.localName === r.exportName ? r.exportName : `${r.exportName} as ${r.localName}` })),
    );
  }
  addNames(imports.fwModule, handlerNames.map((n) => ({ name: n, text: n })));
  if (pending.length > 0) {
    const lastDecl = decls[decls.length - 1];
    const at = lastDecl !== undefined ? lastDecl.getEnd() : 0;
    edits.push({ at, end: at, text: (lastDecl !== undefined ? nl : '') + pending.join(nl) + (lastDecl !== undefined ? '' : nl) });
  }
}

function applyEdits(text: string, edits: Edit[]): string {
  // Apply from the end so earlier offsets stay valid; same-offset inserts keep their order.
  const ordered = edits.map((e, i) => ({ ...e, i })).sort((a, b) => b.at - a.at || b.i - a.i);
  let out = text;
  for (const e of ordered) out = out.slice(0, e.at) + e.text + out.slice(e.end);
  return out;
}

/**
 * Merges `file`'s services into the stub `text`.
 * @param stubName the stub's display path, for warnings
 */
export function mergeStub(text: string, file: FileModel, imports: StubImports, stubName: string): MergeResult {
  if (upToDate(text, file)) return { text, warnings: [] };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Project } = require('ts-morph') as typeof import('ts-morph');
  const project = new Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true, compilerOptions: { noLib: true } });
  const sf = project.createSourceFile('stub.ts', text);
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const edits: Edit[] = [];
  const warnings: string[] = [];
  for (const service of file.services) {
    const cls = findClass(sf, service);
    if (cls === undefined) {
      const indent = '  ';
      const body = service.methods.map((m) => renderStubMethod(m, indent)).join('\n\n');
      const doc = jsdoc(service.comment ?? `Handlers of ${service.typeName}.`, '').split('\n').join(nl);
      const added = `${nl}${doc}export class ${service.name}Impl implements ${service.name}Handlers {${nl}${body.split('\n').join(nl)}${nl}}${nl}`;
      edits.push({ at: text.length, end: text.length, text: added });
      continue;
    }
    const indent = detectIndent(cls, text);
    const wanted = new Map(service.methods.map((m) => [m.localName, m]));
    for (const method of cls.getMethods()) {
      const model = wanted.get(method.getName());
      if (model !== undefined) {
        const written = signatureEdits(method, model, edits);
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
      const members = cls.getMembers();
      const lastMember = members[members.length - 1];
      const added = missing.map((m) => renderStubMethod(m, indent).split('\n').join(nl)).join(nl + nl);
      if (lastMember !== undefined) edits.push({ at: lastMember.getEnd(), end: lastMember.getEnd(), text: nl + nl + added });
      else {
        const open = text.indexOf('{', cls.getNameNode()?.getEnd() ?? cls.getStart());
        edits.push({ at: open + 1, end: open + 1, text: nl + added });
      }
    }
  }
  importEdits(sf, file, imports, edits, nl);
  return { text: applyEdits(text, edits), warnings };
}
