/**
 * The conformance table's protobuf service is checked-in fw-gen output of
 * fixtures/conformance.proto; this keeps it what fw-gen generates now. After
 * changing cli/, templates/ or the proto, regenerate it with
 *   npx fw-gen test/conformance/fixtures -o test/conformance/generated --stubs <a scratch dir>
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../cli/support/run-cli';

describe('checked-in fw-gen output of the conformance proto', () => {
  it('is what fw-gen generates now', () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-conformance-gen-'));
    try {
      const result = runCli(['test/conformance/fixtures', '-o', fresh, '--stubs', path.join(fresh, 'stubs'), '-q']);
      expect(result.stderr).toBe('');
      const generated = path.join(__dirname, 'generated');
      const files = fs.readdirSync(generated).sort();
      expect(fs.readdirSync(fresh).filter((f) => f !== 'stubs').sort()).toEqual(files);
      for (const file of files) expect(fs.readFileSync(path.join(fresh, file), 'utf8')).toBe(fs.readFileSync(path.join(generated, file), 'utf8'));
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  }, 60_000);
});
