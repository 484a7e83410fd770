/**
 * Every TypeScript block of docs/*.md and README.md compiles under --strict,
 * as an ES module (`"type": "module"`, `module: nodenext`) and as CommonJS
 * (a block fenced ```ts esm or ```ts commonjs only in that one). Each block is
 * a file of its own in a project made by the real `fw-gen init` (whose own
 * sources, generated code and test are compiled alongside), with this
 * repository's generated user service added to `./generated/` and its example
 * stub as `./src/user.service.ts`; `fw/*` resolves to runtime/.
 * CommonJS has no top-level `await`, so there a block's statements run inside
 * an async function (imports, exports and declarations stay at the top), as
 * docs/getting-started.md tells CommonJS users to write them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT, runCli } from '../cli/support/run-cli';
import { typecheck, type Problem } from '../cli/support/typecheck';

jest.setTimeout(300_000);

interface Block {
  /** `docs/http.md:120` (the line of the opening fence). */
  where: string;
  code: string;
  /** Only for this module system (fence info `ts esm` / `ts commonjs`). */
  only: 'esm' | 'commonjs' | undefined;
}

function blocksOf(file: string): Block[] {
  const text = fs.readFileSync(file, 'utf8');
  const blocks: Block[] = [];
  const fence = /^```(?:ts|typescript)(?: (esm|commonjs))?\n([\s\S]*?)^```$/gm;
  for (const m of text.matchAll(fence)) {
    const line = text.slice(0, m.index).split('\n').length;
    blocks.push({ where: `${path.relative(REPO_ROOT, file)}:${line}`, code: m[2] as string, only: m[1] as Block['only'] });
  }
  return blocks;
}

function allBlocks(): Block[] {
  const docs = fs.readdirSync(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => path.join(REPO_ROOT, 'docs', f));
  return [...docs, path.join(REPO_ROOT, 'README.md')].flatMap(blocksOf);
}

/** Statements that stay at module level when a block is wrapped for CommonJS. */
function staysOnTop(statement: ts.Statement): boolean {
  return (
    ts.isImportDeclaration(statement) ||
    ts.isImportEqualsDeclaration(statement) ||
    ts.isExportDeclaration(statement) ||
    ts.isExportAssignment(statement) ||
    ts.isInterfaceDeclaration(statement) ||
    ts.isTypeAliasDeclaration(statement) ||
    (ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
  );
}

/** The block as CommonJS: statements after the imports run in an async function when the block awaits at top level. */
function asCommonJs(code: string): string {
  const sf = ts.createSourceFile('block.ts', code, ts.ScriptTarget.ES2022, true);
  const awaitsAtTop = sf.statements.some((s) => !staysOnTop(s) && /\bawait\b/.test(s.getText(sf)) && !ts.isFunctionDeclaration(s) && !ts.isClassDeclaration(s));
  if (!awaitsAtTop) return code;
  const top = sf.statements.filter(staysOnTop).map((s) => s.getFullText(sf));
  const body = sf.statements.filter((s) => !staysOnTop(s)).map((s) => s.getFullText(sf));
  return `${top.join('')}\nexport async function main(): Promise<void> {${body.join('')}\n}\n`;
}

/** The TypeScript files of the scaffold `fw-gen init` wrote (src/, test/, generated/). */
function scaffoldSources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && e.name.endsWith('.ts')) out.push(full);
    }
  };
  for (const sub of ['src', 'test', 'generated']) walk(path.join(dir, sub));
  return out;
}

/** A project made by `fw-gen init` (under test/docs/tmp, outside the repo's own typecheck), plus the user service. */
function projectDir(moduleSystem: 'esm' | 'commonjs'): string {
  const dir = path.join(REPO_ROOT, 'test', 'docs', 'tmp', `${moduleSystem}-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const init = runCli(['init', dir, '--name', 'greeter', '--module', moduleSystem, '--fw', 'file:../../../..'], REPO_ROOT);
  if (init.status !== 0) throw new Error(`fw-gen init failed: ${init.stderr}`);
  for (const f of ['user.ts', 'user.fw.ts', 'user.browser-messages.ts', 'google']) fs.symlinkSync(path.join(REPO_ROOT, 'generated', f), path.join(dir, 'generated', f));
  // The browser client infers its types from the message imports: an ES module project gets them with `.js`, as fw-gen writes them there.
  const browser = fs.readFileSync(path.join(REPO_ROOT, 'generated', 'user.browser.ts'), 'utf8');
  fs.writeFileSync(path.join(dir, 'generated', 'user.browser.ts'), moduleSystem === 'esm' ? browser.replace("from './user.browser-messages';", "from './user.browser-messages.js';") : browser);
  const stub = path.relative(path.join(dir, 'src'), path.join(REPO_ROOT, 'examples', 'user-service', 'user.service')).split(path.sep).join('/');
  fs.writeFileSync(path.join(dir, 'src', 'user.service.ts'), `export * from '${stub}${moduleSystem === 'esm' ? '.js' : ''}';\n`);
  return dir;
}

function describeProblems(problems: readonly Problem[], names: Map<string, string>): string[] {
  return problems.map((p) => `${names.get(path.basename(p.file)) ?? p.file} (+${p.line}): TS${p.code} ${p.message}`);
}

describe('code blocks in docs/ and README.md', () => {
  const blocks = allBlocks();
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds the blocks', () => {
    expect(blocks.length).toBeGreaterThan(40);
  });

  for (const moduleSystem of ['esm', 'commonjs'] as const) {
    it(`compile under --strict as ${moduleSystem === 'esm' ? 'ES modules (nodenext)' : 'CommonJS'}`, () => {
      const dir = projectDir(moduleSystem);
      made.push(dir);
      const names = new Map<string, string>();
      const files = blocks.flatMap((block, i) => {
        if (block.only !== undefined && block.only !== moduleSystem) return [];
        const name = `block${String(i).padStart(3, '0')}.ts`;
        names.set(name, block.where);
        fs.writeFileSync(path.join(dir, name), moduleSystem === 'esm' ? block.code : asCommonJs(block.code));
        return [path.join(dir, name)];
      });
      const scaffold = scaffoldSources(dir);
      expect(scaffold.length).toBeGreaterThan(5);
      expect(describeProblems(typecheck([...files, ...scaffold], moduleSystem), names)).toEqual([]);
    });
  }
});
