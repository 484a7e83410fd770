/**
 * Protobuf Editions: a file written in `edition = "2023"` (fixtures/editions)
 * goes through fw-gen and is served over gRPC and HTTP. Its features survive:
 * explicit presence (a field set to its default is still sent), implicit
 * presence, a map, delimited (group) encoding, expanded repeated encoding, a
 * closed enum. The oracle for the wire is @bufbuild/protobuf, reading the
 * descriptors fw-gen embedded: it encodes what the gRPC client sends and
 * decodes what fw answers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { create, createFileRegistry, equals, fromBinary, toBinary, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { ProtocolGateway } from 'fw';
import { HOST } from '../gateway/support/clients';
import { runCli } from './support/run-cli';

type Json = Record<string, unknown>;
type Codec = { encode(m: unknown): { finish(): Uint8Array }; decode(b: Uint8Array): Json; fromPartial(o: Json): Json };

const TMP = path.join(__dirname, 'tmp');

describe('an Edition 2023 file generates and serves', () => {
  let dir: string;
  let out: string;
  let note: DescMessage;
  let Note: Codec;
  let gateway: ProtocolGateway;
  let port: number;

  beforeAll(async () => {
    fs.mkdirSync(TMP, { recursive: true });
    dir = fs.mkdtempSync(path.join(TMP, 'editions-'));
    out = path.join(dir, 'out');
    const result = runCli([path.join(__dirname, 'fixtures', 'editions'), '-o', out, '--stubs', path.join(dir, 'stubs'), '-q']);
    if (result.status !== 0) throw new Error(result.stderr);
    /* eslint-disable @typescript-eslint/no-require-imports */
    const fw = require(path.join(out, 'notes.fw.ts')) as Json;
    Note = (require(path.join(out, 'notes.ts')) as Json)['Note'] as Codec;
    /* eslint-enable @typescript-eslint/no-require-imports */
    const protos = (fw['FILE_DESCRIPTOR_PROTOS'] as Uint8Array[]).map((b) => fromBinary(FileDescriptorProtoSchema, b));
    expect(protos.find((p) => p.name === 'notes.proto')?.syntax).toBe('editions');
    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: protos }));
    note = registry.getMessage('notes.v1.Note') as DescMessage;
    const store = new Map<string, Json>();
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.addService(fw['NotesDescriptor'] as never, {
      putNote: async (n: Json) => (store.set(String(n['id']), n), n),
      getNote: async (r: { id: string }) => store.get(r.id) ?? {},
    });
    port = (await gateway.listen(0, HOST)).port as number;
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A Note with every feature at work, as protobuf-es builds it. */
  const sample = (): Json => ({ id: 'n1', stars: 0, body: '', mood: 1, color: 0, counts: { a: 1, b: 0 }, attachment: { name: 'file.txt' }, scores: [1, 2], ranks: [3, 4] });

  it('generates TypeScript with explicit presence where the edition says so', () => {
    const ts = fs.readFileSync(path.join(out, 'notes.ts'), 'utf8');
    expect(ts).toMatch(/stars\?: number \| undefined;/);
    expect(ts).toMatch(/\n {2}body: string;/);
    expect(ts).toMatch(/attachment: Attachment \| undefined;/);
  });

  it('writes and reads the wire as protobuf-es does: presence at default, group tags, map entries, expanded and packed repeats', () => {
    const oracle = create(note as never, sample() as never);
    const fromOracle = Note.decode(toBinary(note as never, oracle as never));
    expect(fromOracle).toMatchObject({ id: 'n1', stars: 0, mood: 1, color: 0, counts: { a: 1, b: 0 }, attachment: { name: 'file.txt' }, scores: [1, 2], ranks: [3, 4] });
    const bytes = Note.encode(Note.fromPartial(sample())).finish();
    expect(equals(note as never, fromBinary(note as never, bytes) as never, oracle as never)).toBe(true);
    // Field 7 as a group: start tag (7 << 3 | 3) and end tag (7 << 3 | 4); field 9 expanded: one tag per element.
    expect([...bytes]).toEqual(expect.arrayContaining([59, 60]));
    expect([...bytes].filter((b) => b === 72)).toHaveLength(2);
  });

  it('serves over gRPC: a client encoding with protobuf-es gets back what it sent', async () => {
    const Client = grpc.makeGenericClientConstructor({}, 'notes.v1.Notes');
    const client = new Client(`${HOST}:${port}`, grpc.credentials.createInsecure());
    try {
      const sent = create(note as never, sample() as never);
      const reply = await new Promise<Buffer>((resolve, reject) => {
        client.makeUnaryRequest('/notes.v1.Notes/PutNote', (b: Buffer) => b, (b: Buffer) => b, Buffer.from(toBinary(note as never, sent as never)), { deadline: Date.now() + 5000 }, (err, value) => (err ? reject(err) : resolve(value as Buffer)));
      });
      expect(equals(note as never, fromBinary(note as never, new Uint8Array(reply)) as never, sent as never)).toBe(true);
    } finally {
      client.close();
    }
  });

  it('serves over HTTP on its google.api.http routes, keeping a field set to its default', async () => {
    const put = await fetch(`http://${HOST}:${port}/v1/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'h1', stars: 0, mood: 'MOOD_HAPPY', counts: { x: 2 }, attachment: { name: 'a' } }),
      signal: AbortSignal.timeout(5000),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ id: 'h1', stars: 0, mood: 'MOOD_HAPPY', counts: { x: 2 }, attachment: { name: 'a' } });
    const got = await fetch(`http://${HOST}:${port}/v1/notes/h1`, { signal: AbortSignal.timeout(5000) });
    expect(await got.json()).toMatchObject({ id: 'h1', stars: 0 });
  });
});
