/**
 * "Express middleware runs unmodified" (docs/http.md): eighteen widely used
 * third-party Express middleware, each mounted by the same code as its README
 * shows, once on fw and once on Express 5, sent the same requests over real
 * loopback sockets. The responses (status, the headers that middleware is
 * about, body) and anything it logged must be equal, and must show the
 * middleware did its job.
 *
 * `FW_COMPAT_TABLE=1` prints the table of packages, versions and outcomes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commonCases } from './support/middleware-cases-common';
import { issueCases, Upstream } from './support/middleware-cases-issue';
import { runOn, type MiddlewareCase } from './support/side-by-side';

const upstream = new Upstream();
const dir = mkdtempSync(join(tmpdir(), 'fw-compat-'));
const faviconPath = join(dir, 'favicon.ico');
// Any bytes do: serve-favicon serves the file as it is.
writeFileSync(faviconPath, Buffer.from('00000100010010100000010020006804000016000000', 'hex'));

const cases: MiddlewareCase[] = [...issueCases(upstream), ...commonCases(faviconPath)];
const outcomes: { pkg: string; version: string; exercised: string; same: boolean }[] = [];

function versionOf(pkg: string): string {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

beforeAll(() => upstream.start());

afterAll(async () => {
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
  if (process.env.FW_COMPAT_TABLE === '1') {
    const rows = outcomes.map((o) => `| ${o.pkg} | ${o.version} | ${o.exercised} | ${o.same ? 'same' : 'DIFFERENT'} |`);
    console.log(['| package | version | exercised | fw vs Express 5 |', '|---|---|---|---|', ...rows].join('\n'));
  }
});

test('at least a dozen packages, among them the four of issue 19', () => {
  expect(cases.length).toBeGreaterThanOrEqual(12);
  expect(cases.map((c) => c.pkg)).toEqual(expect.arrayContaining(['http-proxy-middleware', 'swagger-ui-express', 'express-openapi-validator', 'pino-http']));
});

describe.each(cases.map((c) => [c.pkg, c] as const))('%s on fw and on Express 5', (pkg, testCase) => {
  test(testCase.exercised, async () => {
    const onExpress = await runOn('express', testCase);
    const onFw = await runOn('fw', testCase);
    outcomes.push({ pkg, version: versionOf(pkg), exercised: testCase.exercised, same: JSON.stringify(onFw) === JSON.stringify(onExpress) });
    expect(onFw).toEqual(onExpress);
    testCase.check(onFw);
  });
});
