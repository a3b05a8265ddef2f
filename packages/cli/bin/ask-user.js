#!/usr/bin/env node
'use strict';
// The published command: it runs the compiled CLI. (A source checkout runs bin/ask-user.js at the root.)
require('../dist/cli/main.js').main(process.argv.slice(2));
