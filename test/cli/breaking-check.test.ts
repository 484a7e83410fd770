/**
 * `fw-gen --check --against <git-ref>` in a temporary git repository: a
 * typical break of each `buf breaking` category is caught and located
 * (file:line:column, rule, element), a removed RPC names the handler the stub
 * keeps, and additive changes pass in every category.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTemp, removeTemp, runCli, type CliResult } from './support/run-cli';

jest.setTimeout(120_000);

const V1 = `syntax = "proto3";
package shop;

message Item {
  string name = 1;
  int32 count = 2;
}
message Empty {}

service Shop {
  rpc Get(Item) returns (Item);
  rpc Drop(Item) returns (Empty);
}
`;

function git(dir: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

describe('fw-gen --check --against', () => {
  const made: string[] = [];
  afterAll(() => made.forEach(removeTemp));

  /** A repository whose first commit holds V1 (and `extra`), generated; then `next` replaces the protos and is regenerated. */
  function repo(next: Record<string, string>, extra: Record<string, string> = {}): { dir: string; check(...flags: string[]): CliResult } {
    const dir = makeTemp('against');
    made.push(dir);
    fs.mkdirSync(path.join(dir, 'proto'));
    const write = (files: Record<string, string>): void => {
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, 'proto', name), text);
    };
    write({ 'shop.proto': V1, ...extra });
    git(dir, 'init', '-q');
    expect(runCli(['proto', '-q'], dir).status).toBe(0);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'v1');
    for (const name of fs.readdirSync(path.join(dir, 'proto'))) fs.rmSync(path.join(dir, 'proto', name));
    write(next);
    expect(runCli(['proto', '-q'], dir).status).toBe(0);
    return { dir, check: (...flags) => runCli(['proto', '--check', '--against', 'HEAD', ...flags], dir) };
  }

  it('WIRE_JSON by default: a renumbered field (2 → 20) fails with its location and rule', () => {
    const r = repo({ 'shop.proto': V1.replace('int32 count = 2;', 'int32 count = 20;') }).check();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('breaking changes (WIRE_JSON)');
    expect(r.stderr).toMatch(/proto\/shop\.proto:4:1: FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED: Previously present field "2" with name "count" on message "Item"/);
  });

  it('WIRE_JSON: a renamed field changes its JSON name and fails; WIRE lets it pass', () => {
    const p = repo({ 'shop.proto': V1.replace('int32 count = 2;', 'int32 amount = 2;') });
    const json = p.check();
    expect(json.status).toBe(1);
    expect(json.stderr).toMatch(/proto\/shop\.proto:6:3: FIELD_SAME_JSON_NAME: Field "2" with name "amount" on message "Item" changed option "json_name" from "count" to "amount"/);
    expect(p.check('--breaking', 'WIRE').status).toBe(0);
  });

  it('WIRE: a field whose type changes incompatibly fails', () => {
    const r = repo({ 'shop.proto': V1.replace('int32 count = 2;', 'string count = 2;') }).check('--breaking', 'WIRE');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/proto\/shop\.proto:6:3: FIELD_WIRE_COMPATIBLE_TYPE: Field "2" with name "count" on message "Item" changed type from "int32" to "string"/);
  });

  it('PACKAGE: a deleted message fails, and a removed RPC names the handler the stub keeps (in every category)', () => {
    const next = V1.replace('message Empty {}\n', '').replace('  rpc Drop(Item) returns (Empty);\n', '');
    const p = repo({ 'shop.proto': next });
    const pkg = p.check('--breaking', 'PACKAGE');
    expect(pkg.status).toBe(1);
    expect(pkg.stderr).toMatch(/proto\/shop\.proto:1:1: PACKAGE_MESSAGE_NO_DELETE: Previously present message "Empty" was deleted from package "shop"/);
    const handler = 'RPC_REMOVED: RPC "Drop" on service "shop.Shop" was removed; its handler drop in src/shop.service.ts is kept by fw-gen: delete it or restore the RPC.';
    expect(pkg.stderr).toContain(`proto/shop.proto:9:1: RPC_NO_DELETE: Previously present RPC "Drop" on service "Shop" was deleted.`);
    expect(pkg.stderr).toContain(`proto/shop.proto:9:1: ${handler}`);
    const wire = p.check('--breaking', 'WIRE');
    expect(wire.status).toBe(1);
    expect(wire.stderr).toContain(handler);
  });

  it('FILE: a message moved to another file of the same package fails; PACKAGE lets it pass', () => {
    const moved = V1.replace('message Empty {}\n', '').replace('package shop;\n', 'package shop;\n\nimport "empty.proto";\n');
    const p = repo({ 'shop.proto': moved, 'empty.proto': 'syntax = "proto3";\npackage shop;\n\nmessage Empty {}\n' }, { 'empty.proto': 'syntax = "proto3";\npackage shop;\n' });
    const file = p.check('--breaking', 'file');
    expect(file.status).toBe(1);
    expect(file.stderr).toMatch(/proto\/shop\.proto:1:1: MESSAGE_NO_DELETE: Previously present message "Empty" was deleted from file/);
    expect(p.check('--breaking', 'PACKAGE').status).toBe(0);
  });

  it('additive changes (a field, a message, an RPC) pass in every category', () => {
    const next = V1.replace('  int32 count = 2;\n', '  int32 count = 2;\n  string note = 3;\n')
      .replace('message Empty {}\n', 'message Empty {}\nmessage Page { int32 size = 1; }\n')
      .replace('  rpc Drop(Item) returns (Empty);\n', '  rpc Drop(Item) returns (Empty);\n  rpc List(Page) returns (stream Item);\n');
    const p = repo({ 'shop.proto': next });
    for (const category of ['FILE', 'PACKAGE', 'WIRE_JSON', 'WIRE']) {
      const r = p.check('--breaking', category);
      expect({ category, status: r.status, stderr: r.stderr }).toEqual({ category, status: 0, stderr: '' });
    }
  });

  it('rejects an unknown category and --against without --check', () => {
    const p = repo({ 'shop.proto': V1 });
    const bad = p.check('--breaking', 'WIRE_ONLY');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--breaking must be one of FILE, PACKAGE, WIRE_JSON, WIRE');
    const noCheck = runCli(['proto', '--against', 'HEAD'], p.dir);
    expect(noCheck.status).toBe(2);
    expect(noCheck.stderr).toContain('--against compares protos and is used with --check');
  });
});
