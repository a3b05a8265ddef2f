#!/usr/bin/env node
/**
 * Copies into `dist/` what `tsc` does not emit: the inbox page's static files, and the Temporal CLI lookup,
 * which is plain JavaScript so that `npm test` and `npm start` can run it before anything is built.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const from = (...parts) => path.join(ROOT, 'src', ...parts);
const to = (...parts) => path.join(ROOT, 'dist', ...parts);

fs.cpSync(from('inbox', 'page'), to('inbox', 'page'), { recursive: true });
for (const file of ['ensure-temporal.js', 'ensure-temporal.d.ts']) {
  fs.copyFileSync(from('dev-server', file), to('dev-server', file));
}
