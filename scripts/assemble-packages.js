#!/usr/bin/env node
/**
 * Assembles the packages of packages/layout.js from the one compiled tree: each package's `dist/` gets the
 * files of its folders from `dist/`, and an import that crosses into another package is rewritten to that
 * package's name (its public entry when the file is one, else `<name>/internal/<path>`). Run by
 * `npm run build` after `tsc`, the asset copy and the workflow bundles.
 *
 * The build fails, naming the file and the import, when a package imports a package it does not depend on
 * (or one below it in the layout), or when its manifest's dependencies are not exactly the packages its
 * compiled code imports: what a user installs is what the code needs, no more and no less.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { builtinModules } = require('node:module');
const { PACKAGES } = require('../packages/layout');
const { moduleSpecifiers } = require('./module-specifiers');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const ROOT_MANIFEST = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

/** Every file under `directory`, relative to it, with `/` separators. */
function filesUnder(directory, prefix = '') {
  const files = [];
  for (const entry of fs.readdirSync(path.join(directory, prefix), { withFileTypes: true })) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...filesUnder(directory, relative));
    else files.push(relative);
  }
  return files.sort();
}

/** The folder of `src/` a compiled file comes from, named as packages/layout.js names them. */
function folderOf(file) {
  const slash = file.indexOf('/');
  return slash >= 0 ? file.slice(0, slash) : 'entry';
}

/** The compiled file a relative import of `file` names, relative to `dist/`. */
function resolveRelative(file, specifier) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  const candidates = file.endsWith('.d.ts')
    ? [`${base}.d.ts`, `${base}/index.d.ts`, base.replace(/\.js$/, '.d.ts')]
    : [base, `${base}.js`, `${base}/index.js`];
  return candidates.find((candidate) =>
    fs.statSync(path.join(DIST, candidate), { throwIfNoEntry: false })?.isFile(),
  );
}

/** The npm package a bare specifier names (`@scope/name` or `name`). */
function packageNameOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const BUILTINS = new Set(builtinModules);
function isBuiltin(specifier) {
  return specifier.startsWith('node:') || BUILTINS.has(packageNameOf(specifier));
}

/** How package `target` is imported for compiled `file` (relative to `dist/`, extension dropped). */
function specifierInto(target, manifest, file) {
  const stem = file.replace(/(\.d\.ts|\.js)$/, '');
  for (const [subpath, value] of Object.entries(manifest.exports ?? {})) {
    if (subpath.includes('*') || typeof value !== 'object') continue;
    if (value.default === `./dist/${stem}.js`)
      return subpath === '.' ? target.name : `${target.name}/${subpath.slice(2)}`;
  }
  return `${target.name}/internal/${stem}`;
}

function readManifest(layout) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'packages', layout.directory, 'package.json'), 'utf8'));
}

/** Copies the package's files, rewriting imports across packages; returns the problems found. */
function assemble(layout, owners, manifests) {
  const manifest = manifests.get(layout.name);
  const out = path.join(ROOT, 'packages', layout.directory, 'dist');
  fs.rmSync(out, { recursive: true, force: true });
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const used = new Set();
  const problems = [];
  const files = filesUnder(DIST).filter((file) => owners.get(folderOf(file))?.name === layout.name);
  for (const file of files) {
    const from = path.join(DIST, file);
    const to = path.join(out, file);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (
      !/\.(js|d\.ts)$/.test(file) ||
      file.startsWith('inbox/page/') ||
      /^worker\/workflow-bundle/.test(file)
    ) {
      fs.copyFileSync(from, to);
      continue;
    }
    let text = fs.readFileSync(from, 'utf8');
    const edits = [];
    for (const { text: specifier, start, end } of moduleSpecifiers(file, text)) {
      if (!specifier.startsWith('.')) {
        if (!isBuiltin(specifier)) used.add(packageNameOf(specifier));
        continue;
      }
      const target = resolveRelative(file, specifier);
      if (target === undefined) {
        problems.push(`${file}: ${JSON.stringify(specifier)} names no compiled file`);
        continue;
      }
      const owner = owners.get(folderOf(target));
      if (owner === undefined)
        problems.push(`${file}: ${target} belongs to no package of packages/layout.js`);
      if (owner === undefined || owner.name === layout.name) continue;
      used.add(owner.name);
      edits.push({
        start,
        end,
        replacement: JSON.stringify(specifierInto(owner, manifests.get(owner.name), target)),
      });
    }
    for (const { start, end, replacement } of edits.sort((a, b) => b.start - a.start)) {
      text = text.slice(0, start) + replacement + text.slice(end);
    }
    fs.writeFileSync(to, text);
  }
  const order = PACKAGES.map((entry) => entry.name);
  for (const name of [...used].sort()) {
    if (!declared.has(name)) problems.push(`its code imports ${name}, which package.json does not list`);
    if (order.includes(name) && order.indexOf(name) >= order.indexOf(layout.name)) {
      problems.push(`it imports ${name}, which packages/layout.js places after it`);
    }
  }
  for (const name of [...declared].sort()) {
    if (!used.has(name)) problems.push(`package.json lists ${name}, which its code never imports`);
  }
  return { files: files.length, problems };
}

/**
 * A dependency's range must be the root manifest's, where the tests run against it (siblings: the root's
 * version, exactly). Peer ranges are the package's own: the root installs one version of each peer to test.
 */
function rangeProblems(manifest) {
  const problems = [];
  const siblings = new Set(PACKAGES.map((entry) => entry.name));
  if (manifest.version !== ROOT_MANIFEST.version) {
    problems.push(`version ${manifest.version} is not the root's ${ROOT_MANIFEST.version}`);
  }
  for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
    const expected = siblings.has(name) ? ROOT_MANIFEST.version : ROOT_MANIFEST.dependencies[name];
    if (range !== expected) problems.push(`dependencies.${name} is ${range}, the root has ${expected}`);
  }
  return problems;
}

/** The extras each package ships beside `dist/`: the license, and the docs where its `files` name them. */
function copyExtras(layout, manifest) {
  const directory = path.join(ROOT, 'packages', layout.directory);
  fs.copyFileSync(path.join(ROOT, 'LICENSE'), path.join(directory, 'LICENSE'));
  fs.rmSync(path.join(directory, 'docs'), { recursive: true, force: true });
  if ((manifest.files ?? []).includes('docs')) {
    fs.cpSync(path.join(ROOT, 'docs'), path.join(directory, 'docs'), { recursive: true });
  }
}

function main() {
  if (!fs.existsSync(DIST)) throw new Error('dist/ is missing: run tsc -p tsconfig.build.json first');
  const owners = new Map();
  for (const layout of PACKAGES) for (const folder of layout.folders) owners.set(folder, layout);
  const manifests = new Map(PACKAGES.map((layout) => [layout.name, readManifest(layout)]));
  const strays = [...new Set(filesUnder(DIST).map(folderOf))].filter((folder) => !owners.has(folder));
  const failures = strays.map((folder) => `dist/${folder} belongs to no package of packages/layout.js`);
  for (const layout of PACKAGES) {
    const manifest = manifests.get(layout.name);
    const { files, problems } = assemble(layout, owners, manifests);
    copyExtras(layout, manifest);
    failures.push(
      ...[...rangeProblems(manifest), ...problems].map((problem) => `${layout.name}: ${problem}`),
    );
    console.log(`assemble-packages: ${layout.name} (packages/${layout.directory}), ${files} files`);
  }
  if (failures.length > 0) throw new Error(`\n  ${failures.join('\n  ')}`);
}

try {
  main();
} catch (error) {
  console.error(`assemble-packages: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
