#!/usr/bin/env node
/**
 * npm's `prepare`: builds `dist/` when the package is installed from a git URL or a folder (and after
 * `npm install` in a checkout), where nothing else would. `npm pack` and `npm publish` run `prepack` (which
 * builds) and then `prepare` as well: there the build has just run, so this does nothing.
 */
'use strict';

const { spawnSync } = require('node:child_process');

if (process.env.npm_command === 'pack' || process.env.npm_command === 'publish') process.exit(0);

const npm = process.env.npm_execpath;
const result =
  npm === undefined
    ? spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' })
    : spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' });
if (result.error) {
  console.error(`build-prepare: could not run npm run build: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
