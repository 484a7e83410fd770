/**
 * Generated code compiles under `tsc --strict` with zero errors (golden
 * output, its fresh stubs, and the checked-in generated/ with the example),
 * and client misuse is a compile error: a file of `// @ts-expect-error`
 * lines compiles clean, and the same lines without the directive fail,
 * one error per line.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listTree, REPO_ROOT, runCli } from './support/run-cli';
import { typecheck } from './support/typecheck';

const TMP = path.join(__dirname, 'tmp');

function tsFilesUnder(dir: string): string[] {
  return listTree(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
}

const MISUSE = `import { createUserServiceClient } from '../../../../generated/user.fw';
import type { User } from '../../../../generated/user';

const client = createUserServiceClient({ address: '127.0.0.1:1', credentials: 'insecure' });

export async function misuse(): Promise<void> {
  // @ts-expect-error wrong request type: GetUserRequest has no 'email'
  await client.getUser({ email: 'a@b.c' });
  // @ts-expect-error wrong field type: id is a string
  await client.getUser({ id: 42 });
  // @ts-expect-error awaiting a server stream does not give a message
  const user: User = await client.listUsers({});
  // @ts-expect-error a client stream takes an async iterable, not one request
  await client.createMultipleUsers({ name: 'x', email: 'x@example.com' });
  // @ts-expect-error a unary call is a promise, not an async iterable
  for await (const u of client.getUser({ id: '1' })) void u;
  // @ts-expect-error no such method
  await client.removeUser({ id: '1' });
  void user;
}

export async function correctUse(): Promise<void> {
  const user: User = await client.getUser({ id: '1' }, { deadline: 1000 });
  for await (const u of client.listUsers({ page: 1 })) void u.name;
  void user;
}
`;

describe('generated code under tsc --strict', () => {
  beforeAll(() => fs.mkdirSync(TMP, { recursive: true }));
  afterAll(() => fs.rmSync(path.join(TMP, 'misuse'), { recursive: true, force: true }));

  it('golden output and its stubs compile with zero errors', () => {
    const expected = path.join(__dirname, 'fixtures', 'kitchen-sink', 'expected');
    const files = tsFilesUnder(expected);
    expect(files.length).toBeGreaterThan(10);
    expect(typecheck(files)).toEqual([]);
  });

  it('the same protos generated as ES modules (--module esm) compile under module nodenext', () => {
    const dir = path.join(TMP, `esm-${process.pid}`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    try {
      fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
      const proto = path.join(__dirname, 'fixtures', 'kitchen-sink', 'proto');
      const result = runCli([proto, '--out', path.join(dir, 'generated'), '--stubs', path.join(dir, 'src'), '--quiet']);
      expect(result.stderr).toBe('');
      const files = [...tsFilesUnder(path.join(dir, 'generated')), ...tsFilesUnder(path.join(dir, 'src'))];
      expect(files.length).toBeGreaterThan(10);
      // Detected from package.json: every relative import names its .js file.
      const relative = files.flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(/from ["'](\.[^"']*)["']/g)].map((m) => m[1] as string));
      expect(relative.length).toBeGreaterThan(10);
      expect(relative.filter((spec) => !spec.endsWith('.js'))).toEqual([]);
      expect(typecheck(files, 'esm')).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('generated/ and the example service compile with zero errors', () => {
    const files = [...tsFilesUnder(path.join(REPO_ROOT, 'generated')), ...tsFilesUnder(path.join(REPO_ROOT, 'examples', 'user-service'))];
    expect(typecheck(files)).toEqual([]);
  });

  it('client misuse is a compile error, correct use is not', () => {
    const dir = path.join(TMP, 'misuse');
    fs.mkdirSync(dir, { recursive: true });
    const withDirectives = path.join(dir, 'with-directives.ts');
    const without = path.join(dir, 'without-directives.ts');
    fs.writeFileSync(withDirectives, MISUSE);
    fs.writeFileSync(without, MISUSE.replace(/\/\/ @ts-expect-error/g, '// expected error:'));
    expect(typecheck([withDirectives])).toEqual([]);
    const problems = typecheck([without]);
    const directiveLines = MISUSE.split('\n').flatMap((l, i) => (l.includes('@ts-expect-error') ? [i + 2] : []));
    expect([...new Set(problems.map((p) => p.line))].sort((a, b) => a - b)).toEqual(directiveLines);
  });
});
