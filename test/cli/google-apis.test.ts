/**
 * fw-gen over Google's own API protos with heavy `google.api.http` use
 * (longrunning, pubsub, firestore, logging, monitoring, kms from
 * google-proto-files): every template parses, no two bindings collide, and
 * the generated code compiles under `tsc --strict` with zero errors. Also:
 * two bindings that would match the same requests are a generation error
 * naming both RPCs, and a template that breaks the grammar names its method.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyWithImports, HTTP_HEAVY_PROTOS } from './support/google-protos';
import { listTree, runCli } from './support/run-cli';

const TMP = path.join(__dirname, 'tmp');
import { typecheck } from './support/typecheck';

describe('fw-gen over Google API protos', () => {
  let dir: string;
  // Inside the repo (test/**/tmp is ignored by git) so the output resolves the repo's node_modules.
  beforeAll(() => {
    fs.mkdirSync(TMP, { recursive: true });
    dir = fs.mkdtempSync(path.join(TMP, 'google-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('generates code for 14 http-heavy protos that compiles under --strict', () => {
    const src = path.join(dir, 'src');
    copyWithImports(HTTP_HEAVY_PROTOS, src);
    const out = path.join(dir, 'out');
    const result = runCli([src, '-o', out, '--stubs', path.join(dir, 'stubs'), '-q']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const fwFiles = listTree(out).filter((f) => f.endsWith('.fw.ts'));
    for (const proto of HTTP_HEAVY_PROTOS) expect(fwFiles).toContain(proto.replace(/\.proto$/, '.fw.ts'));
    const operations = fs.readFileSync(path.join(out, 'google/longrunning/operations.fw.ts'), 'utf8');
    expect(operations).toContain("'GET /v1/{name=operations}': 'Operations.listOperations'");
    expect(operations).toContain("'GET /v1/{name=operations/**}': 'Operations.getOperation'");
    expect(operations).toContain("'POST /v1/{name=operations/**}:cancel': 'Operations.cancelOperation'");
    const files = [...listTree(out), ...listTree(path.join(dir, 'stubs')).map((f) => path.join('..', 'stubs', f))].filter((f) => f.endsWith('.ts')).map((f) => path.join(out, f));
    expect(typecheck(files)).toEqual([]);
  }, 180_000);

  it('refuses two bindings that match the same requests, naming both RPCs', () => {
    const src = path.join(dir, 'clash');
    fs.mkdirSync(path.join(src), { recursive: true });
    fs.writeFileSync(
      path.join(src, 'clash.proto'),
      `syntax = "proto3";
package clash;
import "google/api/annotations.proto";
message Req { string name = 1; string id = 2; }
service Things {
  rpc GetThing(Req) returns (Req) { option (google.api.http) = { get: "/v1/{name=things/*}" }; }
  rpc FetchThing(Req) returns (Req) { option (google.api.http) = { get: "/v1/{id=things/*}" }; }
  rpc ListThings(Req) returns (Req) { option (google.api.http) = { get: "/v1/{name=things}" }; }
  rpc AllThings(Req) returns (Req) { option (google.api.http) = { get: "/v1/{name=things/**}" }; }
}
`,
    );
    const result = runCli([src, '-o', path.join(dir, 'clash-out'), '-q']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('google.api.http bindings collide');
    expect(result.stderr).toContain('clash.Things.GetThing (GET /v1/{name=things/*})');
    expect(result.stderr).toContain('clash.Things.FetchThing (GET /v1/{id=things/*})');
    // Different sub-patterns are different routes.
    expect(result.stderr).not.toContain('ListThings');
    expect(result.stderr).not.toContain('AllThings');
  }, 60_000);

  it('refuses a template that breaks the grammar, naming the method', () => {
    const src = path.join(dir, 'bad');
    fs.mkdirSync(src, { recursive: true });
    fs.writeFileSync(
      path.join(src, 'bad.proto'),
      `syntax = "proto3";
package bad;
import "google/api/annotations.proto";
message Req { string name = 1; }
service Things {
  rpc GetThing(Req) returns (Req) { option (google.api.http) = { get: "/v1/{name=things/**}/x/**" }; }
}
`,
    );
    const result = runCli([src, '-o', path.join(dir, 'bad-out'), '-q']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('bad.Things.GetThing');
    expect(result.stderr).toContain('at most one "**"');
  }, 60_000);
});
