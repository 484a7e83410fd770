/**
 * Stub merge, each case running the real CLI on a temp copy: edited bodies
 * stay byte-identical, new RPCs appear as UNIMPLEMENTED stubs, changed
 * request types and streaming kinds update the signature only, removed RPCs
 * leave their handler in place with a warning.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GREETER_ADDED, GREETER_REMOVED, GREETER_RETYPED, GREETER_STREAMING, GREETER_V1 } from './support/greeter-protos';
import { makeTemp, removeTemp, runCli } from './support/run-cli';
import { typecheck } from './support/typecheck';

// Each case runs the real CLI several times; a loaded machine can take a while.
jest.setTimeout(120_000);

const EDITED_BODY = `{
    // edited by hand: kept byte for byte
    const greeting   =  \`Hello, \${request.name}!\`;
    return { text: greeting };
  }`;

interface Project {
  dir: string;
  proto: string;
  stub: string;
  gen(): ReturnType<typeof runCli>;
}

function project(): Project {
  const dir = makeTemp('merge');
  fs.mkdirSync(path.join(dir, 'proto'));
  const proto = path.join(dir, 'proto', 'greet.proto');
  fs.writeFileSync(proto, GREETER_V1);
  return {
    dir,
    proto,
    stub: path.join(dir, 'src', 'greet.service.ts'),
    gen: () => runCli(['proto', '--out', 'generated'], dir),
  };
}

/** Replaces the UNIMPLEMENTED body of sayHello with EDITED_BODY. */
function editSayHello(stub: string): string {
  const text = fs.readFileSync(stub, 'utf8');
  const start = text.indexOf('{', text.indexOf('async sayHello('));
  const end = text.indexOf('\n  }', start) + 4;
  const edited = text.slice(0, start) + EDITED_BODY + text.slice(end);
  fs.writeFileSync(stub, edited);
  return edited;
}

describe('stub merge', () => {
  const made: string[] = [];
  afterAll(() => made.forEach(removeTemp));
  const fresh = (): Project => {
    const p = project();
    made.push(p.dir);
    expect(p.gen().status).toBe(0);
    return p;
  };

  it('creates the stub once with UNIMPLEMENTED bodies', () => {
    const p = fresh();
    const text = fs.readFileSync(p.stub, 'utf8');
    expect(text).toContain('export class GreeterImpl implements GreeterHandlers {');
    expect(text).toContain('async sayHello(request: HelloRequest, context: RequestContext): Promise<HelloReply> {');
    expect(text).toContain('async *sayMany(request: HelloRequest, context: RequestContext): AsyncGenerator<HelloReply, void> {');
    expect(text).toContain("throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/greet.Greeter/SayHello has no handler yet');");
    expect(text.startsWith('// Code generated')).toBe(false);
  });

  it('keeps an edited body byte-identical and appends a new RPC as an UNIMPLEMENTED stub', () => {
    const p = fresh();
    const edited = editSayHello(p.stub);
    fs.writeFileSync(p.proto, GREETER_ADDED);
    const result = p.gen();
    expect(result.status).toBe(0);
    const merged = fs.readFileSync(p.stub, 'utf8');
    // Everything before the insertion point is untouched, the edited body included.
    const classEnd = edited.lastIndexOf('\n}');
    expect(merged.startsWith(edited.slice(0, edited.indexOf('import type { GreeterHandlers }')))).toBe(true);
    expect(merged).toContain(EDITED_BODY);
    expect(merged).toContain(
      '  /** Greets everyone sent. */\n  async sayToAll(requests: AsyncIterable<HelloRequest>, context: RequestContext): Promise<HelloReply> {\n' +
        "    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/greet.Greeter/SayToAll has no handler yet');\n  }\n}",
    );
    expect(merged.slice(0, merged.indexOf('  /** Greets everyone sent. */'))).toBe(`${edited.slice(0, classEnd)}\n\n`);
  });

  it('updates the signature of an RPC whose request type changed and keeps its body', () => {
    const p = fresh();
    editSayHello(p.stub);
    fs.writeFileSync(p.proto, GREETER_RETYPED);
    expect(p.gen().status).toBe(0);
    const merged = fs.readFileSync(p.stub, 'utf8');
    expect(merged).toContain(`async sayHello(request: HelloRequestV2, context: RequestContext): Promise<HelloReply> ${EDITED_BODY}`);
    expect(merged).toMatch(/import type \{ HelloReply, HelloRequest, HelloRequestV2 \} from '..\/generated\/greet';/);
  });

  it('turns a handler into an async generator when its RPC becomes a server stream, names it, and the old body stops compiling', () => {
    const p = fresh();
    editSayHello(p.stub);
    expect(typecheck([p.stub])).toEqual([]);
    fs.writeFileSync(p.proto, GREETER_STREAMING);
    const result = p.gen();
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('fw-gen: src/greet.service.ts: GreeterImpl.sayHello is now a server stream (was unary); its signature changed, rewrite the body');
    const merged = fs.readFileSync(p.stub, 'utf8');
    expect(merged).toContain(`async *sayHello(request: HelloRequest, context: RequestContext): AsyncGenerator<HelloReply, void> ${EDITED_BODY}`);
    // `return { text }` in a generator that returns void: a compile error, not a stream that sends nothing.
    expect(typecheck([p.stub]).map((d) => d.code)).toContain(2322);
  });

  it('names a handler whose RPC went from client streaming to bidirectional; its `return` stops compiling', () => {
    const p = fresh();
    fs.writeFileSync(p.proto, GREETER_ADDED);
    expect(p.gen().status).toBe(0);
    const text = fs.readFileSync(p.stub, 'utf8');
    const unimplemented = "throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/greet.Greeter/SayToAll has no handler yet');";
    fs.writeFileSync(p.stub, text.replace(unimplemented, "const names: string[] = [];\n    for await (const r of requests) names.push(r.name);\n    return { text: names.join(', ') };"));
    expect(typecheck([p.stub])).toEqual([]);
    fs.writeFileSync(p.proto, GREETER_ADDED.replace('rpc SayToAll(stream HelloRequest) returns (HelloReply);', 'rpc SayToAll(stream HelloRequest) returns (stream HelloReply);'));
    const result = p.gen();
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('GreeterImpl.sayToAll is now a bidirectional stream (was a client stream)');
    expect(fs.readFileSync(p.stub, 'utf8')).toContain('async *sayToAll(requests: AsyncIterable<HelloRequest>, context: RequestContext): AsyncGenerator<HelloReply, void> {');
    expect(typecheck([p.stub]).map((d) => d.code)).toContain(2322);
  });

  it('keeps the handler of a removed RPC and names it in a warning', () => {
    const p = fresh();
    const before = fs.readFileSync(p.stub, 'utf8');
    fs.writeFileSync(p.proto, GREETER_REMOVED);
    const result = p.gen();
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('GreeterImpl.sayMany handles no RPC of greet.Greeter any more; kept');
    expect(fs.readFileSync(p.stub, 'utf8')).toBe(before);
  });

  it('keeps CRLF line endings and 4-space indentation of a reformatted stub', () => {
    const p = fresh();
    const text = fs.readFileSync(p.stub, 'utf8').replace(/^( +)/gm, (s) => ' '.repeat(s.length * 2)).replace(/\n/g, '\r\n');
    fs.writeFileSync(p.stub, text);
    fs.writeFileSync(p.proto, GREETER_ADDED);
    expect(p.gen().status).toBe(0);
    const merged = fs.readFileSync(p.stub, 'utf8');
    expect(merged.startsWith(text.slice(0, text.lastIndexOf('\r\n}')))).toBe(true);
    expect(merged).toContain('\r\n\r\n    /** Greets everyone sent. */\r\n    async sayToAll(');
    expect(merged.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('appends a class for a new service and imports its handler interface', () => {
    const p = fresh();
    const edited = editSayHello(p.stub);
    fs.writeFileSync(p.proto, `${GREETER_V1}\n// Says goodbye.\nservice Farewell {\n  rpc Bye(HelloRequest) returns (HelloReply);\n}\n`);
    expect(p.gen().status).toBe(0);
    const merged = fs.readFileSync(p.stub, 'utf8');
    expect(merged).toContain("import type { GreeterHandlers, FarewellHandlers } from '../generated/greet.fw';");
    expect(merged).toContain('/** Says goodbye. */\nexport class FarewellImpl implements FarewellHandlers {\n  async bye(request: HelloRequest, context: RequestContext): Promise<HelloReply> {');
    expect(merged).toContain(EDITED_BODY);
    expect(merged.indexOf(edited.slice(edited.indexOf('export class GreeterImpl')))).toBeGreaterThan(0);
  });

  it('adds no name twice when a value import of the module sits above its type import, and --check is then clean', () => {
    const p = fresh();
    const text = fs.readFileSync(p.stub, 'utf8');
    const typeImport = "import type { HelloReply, HelloRequest } from '../generated/greet';";
    expect(text).toContain(typeImport);
    fs.writeFileSync(p.stub, text.replace(typeImport, "import { HelloReply } from '../generated/greet';\nimport type { HelloRequest } from '../generated/greet';"));
    fs.writeFileSync(p.proto, GREETER_ADDED.replace('returns (HelloReply);\n}', 'returns (HelloReply);\n  rpc Again(HelloRequestV2) returns (HelloReply);\n}'));
    expect(p.gen().status).toBe(0);
    const merged = fs.readFileSync(p.stub, 'utf8');
    expect(merged).toContain("import { HelloReply } from '../generated/greet';\nimport type { HelloRequest, HelloRequestV2 } from '../generated/greet';");
    expect(typecheck([p.stub])).toEqual([]);
    expect(runCli(['--check', 'proto', '--out', 'generated'], p.dir).status).toBe(0);
  });

  it('drops an import of a message that is gone, naming it; --check flags the stale import first', () => {
    const p = fresh();
    const text = fs.readFileSync(p.stub, 'utf8');
    fs.writeFileSync(p.stub, text.replace("import type { HelloReply, HelloRequest } from '../generated/greet';", "import type { HelloReply, HelloRequest, HelloRequestV2 } from '../generated/greet';"));
    fs.writeFileSync(p.proto, GREETER_V1.replace('message HelloRequestV2 { string name = 1; string locale = 2; }\n', ''));
    const check = runCli(['--check', 'proto', '--out', 'generated'], p.dir);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain('src/greet.service.ts (stub lacks a method, has a stale signature or imports a name that is gone)');
    const gen = p.gen();
    expect(gen.status).toBe(0);
    expect(gen.stderr).toContain('fw-gen: src/greet.service.ts: dropped imports the generated code no longer exports: HelloRequestV2');
    expect(fs.readFileSync(p.stub, 'utf8')).toBe(text);
    expect(typecheck([p.stub])).toEqual([]);
  });
});
