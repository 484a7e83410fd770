/**
 * fw's body parsers against body-parser 2 (the behaviour they replace), over
 * seeded random requests: media types and charsets, identity, gzip, deflate,
 * br and unknown encodings, Content-Length or chunked bodies, limits,
 * `inflate`, `strict`, `type`, `verify`, flat and extended forms. For each
 * request both must agree on the outcome: the same `req.body`, or a refusal
 * with the same status and error type (body-parser's error put through fw's
 * translation, as fw did when it wrapped body-parser). The seed is printed on
 * failure; FW_BODY_SEED replays one, FW_BODY_CASES runs more.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import bodyParser from 'body-parser';
import iconv from 'iconv-lite';
import { json, raw, text, urlencoded } from 'fw/middleware';
import { bodyParserError } from '../../runtime/middleware/body-parser-errors';
import { prng } from '../support/prng';

type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
type Kind = 'json' | 'form' | 'form-extended' | 'text' | 'raw';

interface Case {
  kind: Kind;
  options: Record<string, unknown>;
  headers: Record<string, string>;
  chunks: Buffer[];
}

const SEED = Number(process.env.FW_BODY_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CASES = Number(process.env.FW_BODY_CASES ?? 400);
const KIND_LABEL: Record<Kind, string> = { json: 'JSON', form: 'form', 'form-extended': 'form', text: 'text', raw: 'binary' };

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function randomString(random: () => number, alphabet: string, max: number): string {
  const chars = [...alphabet];
  let out = '';
  const length = Math.floor(random() * max);
  for (let i = 0; i < length; i++) out += pick(random, chars);
  return out;
}

function randomJson(random: () => number, depth: number): unknown {
  const roll = random();
  if (depth > 3 || roll < 0.3) return pick(random, [0, -1.5, 42, true, false, null, 'x', 'é€', '', randomString(random, 'ab "\\\n€😀', 6)]);
  if (roll < 0.65) return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth + 1));
  const value: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 4); i > 0; i--) value[randomString(random, 'abcé1 ', 4)] = randomJson(random, depth + 1);
  return value;
}

function jsonText(random: () => number): string {
  const roll = random();
  if (roll < 0.08) return '';
  if (roll < 0.14) return pick(random, ['{"a":', 'nul', '{"a":1}}', '[1,]', ' \t\n', '"text"', '12', 'true', '\u00a0{}']);
  const textValue = JSON.stringify(randomJson(random, 0));
  return random() < 0.2 ? `${pick(random, [' ', '\n\t', '\r\n  '])}${textValue}` : textValue;
}

function formText(random: () => number): string {
  const roll = random();
  if (roll < 0.06) return '';
  const pairs: string[] = [];
  for (let i = Math.floor(random() * 7); i >= 0; i--) {
    const key = randomString(random, 'ab0[]%+.é =', 5) + (random() < 0.2 ? pick(random, ['[]', '[x]', '[0]', '[a][b]', '%5B1%5D']) : '');
    const value = randomString(random, 'ab1+%€= 2F[]', 5) + (random() < 0.2 ? pick(random, ['%20', '%E2%82%AC', '%ZZ', '%', '%e9', '%C3%A9']) : '');
    pairs.push(random() < 0.15 ? key : `${key}=${value}`);
  }
  if (random() < 0.2) pairs.push(pairs[0] ?? 'a=1');
  return pairs.join(random() < 0.1 ? '&&' : '&');
}

const CONTENT_TYPES: Record<Kind, readonly string[]> = {
  json: ['application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-16LE', 'application/json; charset=utf-16be', 'application/json; charset=latin1', 'application/vnd.api+json', 'Application/JSON'],
  form: ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=iso-8859-1', 'application/x-www-form-urlencoded; charset=utf-16le', 'application/x-www-form-urlencoded; charset=UTF-8'],
  'form-extended': ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=iso-8859-1'],
  text: ['text/plain', 'text/plain; charset=iso-8859-1', 'text/plain; charset=utf-16be', 'text/plain; charset=x-unknown', 'text/plain; charset=windows-1252', 'text/html'],
  raw: ['application/octet-stream', 'application/octet-stream; charset=x-unknown', 'image/png'],
};
const OTHER_TYPES = ['text/plain', 'application/json', 'application/octet-stream', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'bogus'];

function encodeText(textValue: string, contentType: string): Buffer {
  const charset = /charset=([^;]+)/i.exec(contentType)?.[1]?.toLowerCase();
  if (charset !== undefined && iconv.encodingExists(charset)) return iconv.encode(textValue, charset);
  return Buffer.from(textValue, 'utf8');
}

function makeCase(random: () => number): Case {
  const kind = pick(random, ['json', 'json', 'form', 'form', 'form-extended', 'text', 'raw'] as const);
  const options: Record<string, unknown> = { limit: pick(random, [16, 64, 1024, 1 << 20]) };
  if (random() < 0.25) options['inflate'] = false;
  if (kind === 'json' && random() < 0.3) options['strict'] = false;
  if (kind === 'form') options['extended'] = false;
  if (kind === 'form-extended') options['extended'] = true;
  if (kind === 'form' && random() < 0.2) options['parameterLimit'] = pick(random, [1, 2, 5]);
  if (random() < 0.15) options['type'] = pick(random, ['*/*', 'text/*', '+json', ['application/json', 'text/plain'], 'application/*']);
  if (random() < 0.15) options['verify'] = 'refuse-bang';

  const headers: Record<string, string> = {};
  const contentType = random() < 0.85 ? pick(random, CONTENT_TYPES[kind]) : pick(random, OTHER_TYPES);
  if (random() < 0.95) headers['content-type'] = contentType;
  let body: Buffer;
  if (kind === 'raw') body = Buffer.from(Array.from({ length: Math.floor(random() * 80) }, () => Math.floor(random() * 256)));
  else {
    const source = kind === 'json' ? jsonText(random) : kind === 'text' ? randomString(random, 'ab\n€é😀!', 40) : formText(random);
    body = encodeText(random() < 0.1 ? `!${source}` : source, contentType);
    if (random() < 0.05) body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    if (random() < 0.04) body = Buffer.concat([body, Buffer.from([0xff, 0xc3])]);
  }
  const encoding = pick(random, ['identity', 'identity', 'identity', 'gzip', 'deflate', 'br', 'GZIP', 'compress', 'none']);
  if (encoding !== 'identity' && encoding !== 'none') headers['content-encoding'] = encoding;
  if (encoding === 'none' && random() < 0.5) headers['content-encoding'] = 'identity';
  const lower = encoding.toLowerCase();
  if (lower === 'gzip') body = gzipSync(body);
  else if (lower === 'deflate') body = deflateSync(body);
  else if (lower === 'br') body = brotliCompressSync(body);
  if (random() < 0.03 && lower === 'gzip') body = body.subarray(0, Math.max(1, body.length - 4));

  const chunks: Buffer[] = [];
  if (random() < 0.35) {
    headers['transfer-encoding'] = 'chunked';
    for (let at = 0; at < body.length; ) {
      const size = 1 + Math.floor(random() * 9);
      chunks.push(body.subarray(at, at + size));
      at += size;
    }
  } else {
    headers['content-length'] = String(body.length);
    chunks.push(body);
  }
  return { kind, options, headers, chunks };
}

function refuseBang(_req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  if (buf[0] === 0x21) throw new Error('bodies starting with ! are refused');
}

function middlewareFor(testCase: Case, implementation: 'fw' | 'ref'): Handler {
  const options = { ...testCase.options };
  if (options['verify'] !== undefined) options['verify'] = refuseBang;
  const kind = testCase.kind;
  if (implementation === 'fw') {
    if (kind === 'json') return json(options) as Handler;
    if (kind === 'form' || kind === 'form-extended') return urlencoded(options) as Handler;
    return (kind === 'text' ? text(options) : raw(options)) as Handler;
  }
  if (kind === 'json') return bodyParser.json(options) as Handler;
  if (kind === 'form' || kind === 'form-extended') return bodyParser.urlencoded(options) as Handler;
  return (kind === 'text' ? bodyParser.text(options) : bodyParser.raw(options)) as Handler;
}

/** What a parser made of one request, comparable across implementations. */
function outcome(testCase: Case, implementation: 'fw' | 'ref', req: IncomingMessage & { body?: unknown }, error: unknown): unknown {
  if (error !== undefined && error !== null) {
    const translated = implementation === 'ref' ? bodyParserError(error, KIND_LABEL[testCase.kind]) : (error as { statusCode: number; type: string });
    return { status: translated.statusCode, type: translated.type };
  }
  const body = req.body;
  return { body: Buffer.isBuffer(body) ? { bytes: body.toString('base64') } : body === undefined ? '<undefined>' : body };
}

let server: Server;
let port = 0;
let current: Case | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    const testCase = current as Case;
    const implementation = req.url === '/fw' ? 'fw' : 'ref';
    middlewareFor(testCase, implementation)(req, res, (error) => {
      const result = outcome(testCase, implementation, req as IncomingMessage & { body?: unknown }, error);
      let finished = false;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        res.setHeader('connection', 'close');
        res.end(JSON.stringify(result));
      };
      // A refusal may come before the body is read: read the rest, so the client's write completes.
      if (req.readableEnded) finish();
      else {
        req.on('end', finish);
        req.on('close', finish);
        req.resume();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function exchange(path: string, testCase: Case): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, method: 'POST', headers: testCase.headers, agent: false }, (incoming) => {
      const parts: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => parts.push(chunk));
      incoming.on('end', () => resolve(JSON.parse(Buffer.concat(parts).toString('utf8'))));
    });
    outgoing.on('error', reject);
    for (const chunk of testCase.chunks) outgoing.write(chunk);
    outgoing.end();
  });
}

describe('body parsers agree with body-parser 2', () => {
  it(`on ${CASES} seeded random requests`, async () => {
    const random = prng(SEED);
    for (let i = 0; i < CASES; i++) {
      const testCase = makeCase(random);
      current = testCase;
      const ours = await exchange('/fw', testCase);
      const theirs = await exchange('/ref', testCase);
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
        const shown = { ...testCase, chunks: Buffer.concat(testCase.chunks).toString('latin1') };
        throw new Error(`seed ${SEED}, case ${i}: fw ${JSON.stringify(ours)} but body-parser ${JSON.stringify(theirs)} for ${JSON.stringify(shown)} (replay: FW_BODY_SEED=${SEED})`);
      }
    }
  }, 120_000);
});
