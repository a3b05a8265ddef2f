#!/usr/bin/env node
/**
 * Copies into `dist/` what `tsc` does not emit: the inbox page's files that the inbox serves (HTML, style sheet,
 * ES modules; not the tsconfig.json and type declarations that only its type check reads), and the Temporal CLI
 * lookup, which is plain JavaScript so that `npm test` and `npm start` can run it before anything is built.
 * The page's `diff` modules are not copied: the inbox serves them from the installed `diff` package.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const from = (...parts) => path.join(ROOT, 'src', ...parts);
const to = (...parts) => path.join(ROOT, 'dist', ...parts);

const SERVED_PAGE_FILE = /\.(html|css|js)$/;

/** A file the inbox serves, or a folder holding one: folders of type declarations alone stay behind. */
function isServed(source) {
  if (!fs.statSync(source).isDirectory()) return SERVED_PAGE_FILE.test(source);
  return fs.readdirSync(source).some((name) => isServed(path.join(source, name)));
}

fs.cpSync(from('inbox', 'page'), to('inbox', 'page'), { recursive: true, filter: isServed });
for (const file of ['ensure-temporal.js', 'ensure-temporal.d.ts']) {
  fs.copyFileSync(from('dev-server', file), to('dev-server', file));
}
