'use strict';
// Runs the built example HTTP app (examples/http-app) from dist/.
// `npm install` builds dist/ (the `prepare` script); `npm run start:http` runs this.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const entry = join(__dirname, '..', 'dist', 'examples', 'http-app', 'main.js');
if (!existsSync(entry)) {
  console.error(`${entry} is missing: run \`npm install\` (or \`npm run build\`) first.`);
  process.exit(1);
}
require(entry);
