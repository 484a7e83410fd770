/**
 * The descriptors fw's runtime ships (runtime/core/shipped-file-descriptors.data.ts)
 * are byte for byte what fw-gen's own build produces for those files, so
 * generated code may name them instead of embedding them.
 * After a change of buf, google-proto-files or cli/protos:
 * `UPDATE_SHIPPED=1 npx jest test/cli/shipped-descriptors` and review the diff.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bufBuild } from '../../cli/buf-build';
import { splitDescriptorSet } from '../../cli/descriptor-bytes';
import { createWorkspace } from '../../cli/include-root';
import { SHIPPED_DESCRIPTOR_FILES, renderShippedDescriptorData } from '../../cli/shipped-descriptors';
import { makeTemp, removeTemp, REPO_ROOT } from './support/run-cli';

jest.setTimeout(60_000);

const DATA_FILE = path.join(REPO_ROOT, 'runtime', 'core', 'shipped-file-descriptors.data.ts');

it('the runtime ships the descriptors fw-gen builds for the well-known types and its annotation protos', async () => {
  const dir = makeTemp('shipped');
  try {
    const proto = path.join(dir, 'all.proto');
    fs.writeFileSync(proto, `syntax = "proto3";\npackage all;\n${SHIPPED_DESCRIPTOR_FILES.map((f) => `import "${f}";`).join('\n')}\n`);
    const ws = createWorkspace([dir], [proto]);
    let bytes: Uint8Array;
    try {
      bytes = await bufBuild(ws, ['src0/all.proto'], dir);
    } finally {
      ws.dispose();
    }
    const expected = renderShippedDescriptorData(splitDescriptorSet(bytes, new Set()).files);
    if (process.env['UPDATE_SHIPPED'] === '1') fs.writeFileSync(DATA_FILE, expected);
    expect(fs.readFileSync(DATA_FILE, 'utf8')).toBe(expected);
  } finally {
    removeTemp(dir);
  }
});
