#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepare` on install).
require('../dist/cli/main.js');
