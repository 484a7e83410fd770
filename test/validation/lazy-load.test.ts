/**
 * protovalidate and CEL load with the first generated service, never on an
 * HTTP-only `import 'fw'` or for inline services (a fresh process, since
 * jest's module registry is shared).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

it('loads protovalidate only when a generated service is registered', () => {
  const result = spawnSync(process.execPath, [path.join(__dirname, 'fixtures', 'loaded-modules.js')], { encoding: 'utf8', timeout: 60_000 });
  expect(result.stderr).toBe('');
  const [afterImport, afterInline, afterGenerated] = JSON.parse(result.stdout) as number[];
  expect(afterImport).toBe(0);
  expect(afterInline).toBe(0);
  expect(afterGenerated).toBeGreaterThan(0);
});
