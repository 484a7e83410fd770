#!/usr/bin/env node
'use strict';
// Launcher of the compiled CLI, dist/cli/main.js (bin/compiled-cli.js finds it, and builds it in a checkout).
require(require('./compiled-cli').compiledCli('main.js'));
