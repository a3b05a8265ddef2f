#!/usr/bin/env node
'use strict';
// In a source checkout (src/ present and tsx installed) the CLI runs from source, so a stale dist/ is never
// used by mistake; the published package and the container image carry only dist/ and run that.
const fs = require('node:fs');
const path = require('node:path');

const source = path.join(__dirname, '..', 'src', 'cli', 'main.ts');
const compiled = path.join(__dirname, '..', 'dist', 'cli', 'main.js');

function canRunSource() {
  if (!fs.existsSync(source)) return false;
  try {
    require.resolve('tsx/cjs');
    return true;
  } catch {
    return false;
  }
}

let cli;
if (canRunSource()) {
  require('tsx/cjs');
  cli = require(source);
} else {
  cli = require(compiled);
}
cli.main(process.argv.slice(2));
