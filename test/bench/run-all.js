'use strict';
// `npm run bench`: runs every `bench:*` script of package.json in turn and
// fails if any of them fails.
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const pkg = require(join(__dirname, '..', '..', 'package.json'));
const names = Object.keys(pkg.scripts || {}).filter((name) => name.startsWith('bench:')).sort();
let failed = 0;
for (const name of names) {
  console.log(`\n=== npm run ${name} ===`);
  const result = spawnSync('npm', ['run', '--silent', name], { stdio: 'inherit', cwd: join(__dirname, '..', '..') });
  if (result.status !== 0) failed++;
}
console.log(`\n${names.length - failed}/${names.length} benchmarks completed`);
process.exit(failed === 0 ? 0 : 1);
