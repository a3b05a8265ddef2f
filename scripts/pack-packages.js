#!/usr/bin/env node
/**
 * Packs every package of packages/layout.js (built first by `npm run build`) into a folder, default `packs/`:
 * `node scripts/pack-packages.js [--destination DIR] [--json]`. With `--json` it prints, as the last line,
 * `{ "<package name>": { "tarball": "<absolute path>", "files": [...] } }`.
 */
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');

const { PACKAGES } = require('../packages/layout');

const ROOT = path.resolve(__dirname, '..');

/** Packs each package into `destination`; returns name -> tarball and packed files. */
function packPackages(destination) {
  fs.mkdirSync(destination, { recursive: true });
  const packed = {};
  for (const layout of PACKAGES) {
    const directory = path.join(ROOT, 'packages', layout.directory);
    if (!fs.existsSync(path.join(directory, 'dist'))) {
      throw new Error(`packages/${layout.directory}/dist is missing: run npm run build first`);
    }
    const output = execFileSync(
      'npm',
      ['pack', '--json', '--pack-destination', destination, '--no-audit', '--no-fund', '--loglevel=error'],
      { cwd: directory, encoding: 'utf8' },
    );
    const [report] = JSON.parse(output);
    packed[layout.name] = {
      tarball: path.join(destination, report.filename),
      files: report.files.map((file) => file.path).sort(),
    };
  }
  return packed;
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      destination: { type: 'string', default: path.join(ROOT, 'packs') },
      json: { type: 'boolean' },
    },
  });
  const packed = packPackages(path.resolve(values.destination));
  if (values.json) console.log(JSON.stringify(packed));
  else for (const [name, { tarball }] of Object.entries(packed)) console.log(`${name}: ${tarball}`);
}

module.exports = { packPackages };
