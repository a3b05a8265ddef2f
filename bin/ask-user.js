#!/usr/bin/env node
'use strict';
// The published package runs the compiled CLI; a source checkout without a build runs it through tsx.
const fs = require('node:fs');
const path = require('node:path');

const compiled = path.join(__dirname, '..', 'dist', 'cli', 'main.js');
let cli;
if (fs.existsSync(compiled)) {
  cli = require(compiled);
} else {
  require('tsx/cjs');
  cli = require(path.join(__dirname, '..', 'src', 'cli', 'main.ts'));
}
cli.main(process.argv.slice(2));
