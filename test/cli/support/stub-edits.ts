/**
 * Random edits a user may make to a generated stub, each leaving it valid
 * TypeScript against the same generated code: import styles (type-only
 * statements, inline `type`, one name per statement, aliases, a namespace
 * import, any order, quotes, comments, semicolons), formatting (tabs, CRLF),
 * comments, extra helpers and hand-written bodies. Bodies only throw, so they
 * compile whatever streaming kind or types a later proto gives their RPC.
 */
import ts from 'typescript';
import { pick } from './random-proto';

interface Binding {
  module: string;
  name: string;
  local: string;
  typeOnly: boolean;
}

interface StubShape {
  bindings: Binding[];
  namespaces: { module: string; ns: string }[];
  importsStart: number;
  importsEnd: number;
  /** Class methods: name → body text, and the type names its signature writes. */
  methods: Map<string, { body: string; signatureTypes: string[]; paramType: ts.TypeNode | undefined }>;
  classBodyStart: number;
}

/** Reads the parts of a stub the edits and the checks need. */
export function readStub(text: string): StubShape {
  const sf = ts.createSourceFile('stub.ts', text, ts.ScriptTarget.ES2022, true);
  const bindings: Binding[] = [];
  const namespaces: { module: string; ns: string }[] = [];
  let importsStart = -1;
  let importsEnd = -1;
  const methods: StubShape['methods'] = new Map();
  let classBodyStart = -1;
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      if (importsStart < 0) importsStart = st.getStart(sf);
      importsEnd = st.getEnd();
      const clause = st.importClause;
      const nb = clause?.namedBindings;
      if (nb !== undefined && ts.isNamespaceImport(nb)) namespaces.push({ module: st.moduleSpecifier.text, ns: nb.name.text });
      if (nb !== undefined && ts.isNamedImports(nb)) {
        for (const el of nb.elements) {
          bindings.push({ module: st.moduleSpecifier.text, name: (el.propertyName ?? el.name).text, local: el.name.text, typeOnly: clause?.isTypeOnly === true || el.isTypeOnly });
        }
      }
    }
    if (ts.isClassDeclaration(st) && classBodyStart < 0) {
      classBodyStart = text.indexOf('{', (st.heritageClauses?.[0] ?? st.name ?? st).getEnd()) + 1;
      for (const member of st.members) {
        if (!ts.isMethodDeclaration(member) || member.body === undefined || !ts.isIdentifier(member.name)) continue;
        const types: string[] = [];
        const collect = (node: ts.Node): void => {
          if (ts.isTypeReferenceNode(node)) types.push(node.typeName.getText(sf));
          ts.forEachChild(node, collect);
        };
        const param = member.parameters[0]?.type;
        if (param !== undefined) collect(param);
        if (member.type !== undefined) collect(member.type);
        methods.set(member.name.text, { body: member.body.getText(sf), signatureTypes: types, paramType: param });
      }
    }
  }
  return { bindings, namespaces, importsStart, importsEnd, methods, classBodyStart };
}

/** Message names that kept handlers other than `live` name in their signatures (aliases resolved). */
export function pinnedMessages(text: string, live: ReadonlySet<string>): Set<string> {
  const shape = readStub(text);
  const pinned = new Set<string>();
  for (const [name, m] of shape.methods) {
    if (live.has(name)) continue;
    for (const t of m.signatureTypes) {
      const bound = shape.bindings.find((b) => b.local === t);
      pinned.add(bound?.name ?? t.replace(/^\w+\./, ''));
    }
  }
  return pinned;
}

const isMessage = (b: Binding): boolean => /^M\d+$/.test(b.name);
const isRuntimeValue = (b: Binding): boolean => b.name === 'GrpcError' || b.name === 'GrpcStatus';

/** Rewrites the import section in a random style; the names bound stay the same. */
function restyleImports(text: string, rand: () => number, nl: string): string {
  const shape = readStub(text);
  if (shape.importsStart < 0) return text;
  const q = rand() < 0.7 ? "'" : '"';
  const semi = rand() < 0.8 ? ';' : '';
  const indent = pick(rand, ['  ', '    ', '\t']);
  const bindings = shape.bindings.map((b) => ({
    ...b,
    // Messages are values too; runtime values must stay values; everything else stays a type.
    typeOnly: isRuntimeValue(b) ? false : isMessage(b) ? rand() < 0.6 : true,
  }));
  const spec = (b: Binding, inline: boolean): string => `${inline && b.typeOnly ? 'type ' : ''}${b.name === b.local ? b.name : `${b.name} as ${b.local}`}`;
  const list = (items: string[]): string => {
    if (items.length > 1 && rand() < 0.4) return `{${nl}${items.map((i) => `${indent}${i}`).join(`,${nl}`)}${rand() < 0.5 ? ',' : ''}${nl}}`;
    const sep = pick(rand, [', ', ',', ' , ']);
    const pad = pick(rand, [' ', '', '  ']);
    const comment = rand() < 0.15 ? ' /* kept */' : '';
    return `{${pad}${items.join(sep)}${comment}${pad}}`;
  };
  const statements: string[] = [];
  const modules = [...new Set(bindings.map((b) => b.module))];
  for (const module of modules) {
    const mine = bindings.filter((b) => b.module === module);
    const from = `from ${q}${module}${q}${semi}`;
    const style = Math.floor(rand() * 3);
    if (style === 0) {
      const types = mine.filter((b) => b.typeOnly);
      const values = mine.filter((b) => !b.typeOnly);
      if (types.length > 0) statements.push(`import type ${list(types.map((b) => spec(b, false)))} ${from}`);
      if (values.length > 0) statements.push(`import ${list(values.map((b) => spec(b, false)))} ${from}`);
    } else if (style === 1) {
      statements.push(`import ${list(mine.map((b) => spec(b, true)))} ${from}`);
    } else {
      for (const b of mine) statements.push(`${b.typeOnly ? 'import type' : 'import'} { ${spec(b, false)} } ${from}`);
    }
  }
  for (const n of shape.namespaces) statements.push(`import * as ${n.ns} from ${q}${n.module}${q}${semi}`);
  // Any order; now and then a comment line between statements.
  for (let i = statements.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [statements[i], statements[j]] = [statements[j] as string, statements[i] as string];
  }
  const lines = statements.flatMap((s) => (rand() < 0.1 ? ['// imports the stub uses', s] : [s]));
  return text.slice(0, shape.importsStart) + lines.join(nl) + text.slice(shape.importsEnd);
}

/** Adds an import of a message the generated module exports, unused, in a random form. */
function extraImport(text: string, rand: () => number, nl: string, messages: readonly string[], generatedModule: string): string {
  const shape = readStub(text);
  const name = pick(rand, messages);
  const form = Math.floor(rand() * 3);
  const line =
    form === 0
      ? `import { ${name} } from '${generatedModule}';`
      : form === 1
        ? `import type { ${name} as Alias${name} } from '${generatedModule}';`
        : `import { type ${name} as Extra${name} } from '${generatedModule}';`;
  if (shape.bindings.some((b) => line.includes(` as ${b.local} `) || (form === 0 && b.local === name))) return text;
  return text.slice(0, shape.importsEnd) + nl + line + text.slice(shape.importsEnd);
}

/** A message name not written through a namespace (`pb.M1`). */
const UNQUALIFIED_MESSAGE = /(?<![\w.$])M\d+\b/;

/** Writes one handler's request type through an alias import. */
function aliasSignature(text: string, rand: () => number, nl: string, generatedModule: string): string {
  const shape = readStub(text);
  const candidates = [...shape.methods.entries()].filter(([, m]) => m.paramType !== undefined && UNQUALIFIED_MESSAGE.test(m.paramType.getText()));
  if (candidates.length === 0) return text;
  const [, method] = pick(rand, candidates);
  const node = method.paramType as ts.TypeNode;
  const sf = node.getSourceFile();
  const written = node.getText(sf);
  const message = UNQUALIFIED_MESSAGE.exec(written)?.[0] as string;
  const alias = `${message}Msg`;
  const retyped = written.replace(message, alias);
  const start = node.getStart(sf);
  let out = text.slice(0, start) + retyped + text.slice(node.getEnd());
  if (!shape.bindings.some((b) => b.local === alias)) {
    out = out.slice(0, shape.importsEnd) + nl + `import type { ${message} as ${alias} } from '${generatedModule}';` + out.slice(shape.importsEnd);
  }
  return out;
}

/** Adds a namespace import of the generated module, read by a helper. */
function namespaceImport(text: string, nl: string, generatedModule: string): string {
  const shape = readStub(text);
  if (shape.namespaces.length > 0) return text;
  const line = `import * as pb from '${generatedModule}';`;
  const helper = `${nl}${nl}/** The proto package, read through a namespace import. */${nl}export const packageName: string = pb.protobufPackage;`;
  return text.slice(0, shape.importsEnd) + nl + line + helper + text.slice(shape.importsEnd);
}

let counter = 0;

/** Replaces a random handler's body with a hand-written one that compiles for any kind. */
function editBody(text: string, rand: () => number, nl: string): string {
  const shape = readStub(text);
  const names = [...shape.methods.keys()].filter((n) => !n.startsWith('helper'));
  if (names.length === 0) return text;
  const name = pick(rand, names);
  const body = (shape.methods.get(name) as { body: string }).body;
  const at = text.indexOf(body, shape.classBodyStart);
  counter += 1;
  const k = counter;
  const ind = pick(rand, ['    ', '\t\t', '      ']);
  const replacement = pick(rand, [
    `{${nl}${ind}// hand-written ${k}${nl}${ind}void context;${nl}${ind}throw new GrpcError(GrpcStatus.INTERNAL, 'body ${k}');${nl}  }`,
    `{ throw new Error("one line ${k}") }`,
    `{${nl}${ind}if (context === undefined) throw new Error('no context');${nl}${nl}${ind}throw new GrpcError(GrpcStatus.UNAVAILABLE, \`try later \${${k}}\`);   ${nl}  }`,
  ]);
  return text.slice(0, at) + replacement + text.slice(at + body.length);
}

/** Adds a top-level helper, a private method, a field or a comment. */
function addHelper(text: string, rand: () => number, nl: string): string {
  const shape = readStub(text);
  counter += 1;
  const k = counter;
  const kind = Math.floor(rand() * 4);
  if (kind === 0) return `${text.replace(/\s*$/, '')}${nl}${nl}function helperFn${k}(): number {${nl}  return ${k};${nl}}${nl}void helperFn${k};${nl}`;
  const inClass =
    kind === 1
      ? `${nl}  private helper${k}(): string {${nl}    return 'h${k}';${nl}  }${nl}`
      : kind === 2
        ? `${nl}  private readonly field${k} = ${k};${nl}`
        : `${nl}  // a comment of the user's ${k}${nl}`;
  return text.slice(0, shape.classBodyStart) + inClass + text.slice(shape.classBodyStart);
}

/** Applies one to four random edits; returns the new text and what was done. */
export function editStub(text: string, rand: () => number, messages: readonly string[], generatedModule: string): { text: string; done: string[] } {
  const done: string[] = [];
  let out = text;
  const nl = out.includes('\r\n') ? '\r\n' : '\n';
  const count = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < count; i += 1) {
    const what = Math.floor(rand() * 9);
    if (what === 0) out = restyleImports(out, rand, nl);
    else if (what === 1) out = extraImport(out, rand, nl, messages, generatedModule);
    else if (what === 2) out = aliasSignature(out, rand, nl, generatedModule);
    else if (what === 3) out = namespaceImport(out, nl, generatedModule);
    else if (what === 4 || what === 5) out = editBody(out, rand, nl);
    else if (what === 6) out = addHelper(out, rand, nl);
    else if (what === 7) out = out.replace(/^((?: {2})+)/gm, (s) => '\t'.repeat(s.length / 2));
    else out = nl === '\n' ? out.replace(/\n/g, '\r\n') : out.replace(/\r\n/g, '\n');
    done.push(['restyle imports', 'extra import', 'alias in a signature', 'namespace import', 'edit body', 'edit body', 'add helper', 'tabs', 'line endings'][what] as string);
    if (what === 8) return { text: out, done };
  }
  return { text: out, done };
}
