/**
 * The guides speak to users: no references to the spec document (users do not
 * have it), no internal runtime/ source paths and no instruction counts. Those
 * belong in docs/architecture.md or in a bench's own output.
 */
import fs from 'node:fs';
import path from 'node:path';

const docs = path.resolve(__dirname, '../../docs');
const guides = fs.readdirSync(docs).filter((f) => f.endsWith('.md') && f !== 'architecture.md');

describe('user guides', () => {
  it.each(guides)('%s has no spec section numbers, runtime/ source paths or callgrind counts', (guide) => {
    const lines = fs.readFileSync(path.join(docs, guide), 'utf8').split('\n');
    const found = lines.flatMap((line, i) => {
      const hits: string[] = [];
      if (/\bspec \d/i.test(line)) hits.push('spec section');
      if (/(^|[^/\w])runtime\//.test(line)) hits.push('runtime/ path');
      if (/callgrind/i.test(line)) hits.push('callgrind');
      return hits.map((what) => `${guide}:${i + 1} ${what}: ${line.trim()}`);
    });
    expect(found).toEqual([]);
  });
});
