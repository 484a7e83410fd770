'use strict';
// Prints the plain closing line CI reads ("tests: N passed, N failed, N skipped"),
// preceded by one line per suite skipped for a missing system peer
// (test/support/peers.ts puts "skipped: <peer> not installed (…)" in its title).
const path = require('node:path');

const PEER_SKIP = / — (skipped: .*)$/;

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const lines = new Set();
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        const title = test.ancestorTitles[0] ?? '';
        const match = test.status === 'pending' ? PEER_SKIP.exec(title) : null;
        if (match !== null) lines.add(`${path.relative(process.cwd(), file.testFilePath)}: ${match[1]}`);
      }
    }
    for (const line of lines) process.stdout.write(`\n${line}`);
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
