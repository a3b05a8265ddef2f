/**
 * The packages as a user gets them: `npm run build` and `npm pack` of each package of packages/layout.js in a
 * copy of the sources, with the checkout's node_modules linked in for the build tools, so the checkout's own
 * `dist/` is neither used nor touched; then consumer projects that `npm install` the tarballs.
 *
 * The packages are not on a registry, so a consumer that depends on one package gets its sibling
 * dependencies from the tarballs through `overrides`, which is what npm would fetch from the registry.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { PROJECT_ROOT } from '../fixtures/child-process';

/** What the build needs from the checkout: the sources, the build configuration and the shipped extras. */
const SOURCES = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'LICENSE',
  'README.md',
  'docs',
  'src',
  'bin',
  'scripts',
  'packages',
];
/** What a checkout's packages/ may hold besides its sources: an earlier build's output. */
const BUILT = /^packages\/[^/]+\/(dist|docs|LICENSE)(\/|$)/;
export const NPM_FLAGS = ['--no-audit', '--no-fund', '--loglevel=error'];

/** Runs `command` in `cwd` and returns what it printed and how it exited. */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeout = 300_000,
): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (result.error) throw result.error;
  return result;
}

/** Runs `command` in `cwd`, fails the test with its output unless it exits 0, and returns its stdout. */
export function runOk(command: string, args: readonly string[], cwd: string, timeout?: number): string {
  const result = run(command, args, cwd, timeout);
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** One packed package: its tarball and the files it holds. */
export interface PackedPackage {
  tarball: string;
  files: string[];
}

/** Every package of the layout, packed, by package name. */
export type PackedPackages = Record<string, PackedPackage>;

/** Builds the checkout and packs every package into `directory` (which must exist). */
export function packPackages(directory: string): PackedPackages {
  const source = path.join(directory, 'source');
  fs.mkdirSync(source);
  for (const entry of SOURCES) {
    fs.cpSync(path.join(PROJECT_ROOT, entry), path.join(source, entry), {
      recursive: true,
      filter: (file) => !BUILT.test(path.relative(PROJECT_ROOT, file).split(path.sep).join('/')),
    });
  }
  fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(source, 'node_modules'), 'dir');
  runOk('npm', ['run', 'build', '--silent'], source);
  // The report is the last line printed.
  const output = runOk(
    process.execPath,
    ['scripts/pack-packages.js', '--json', '--destination', directory],
    source,
  ).trim();
  return JSON.parse(output.slice(output.lastIndexOf('\n') + 1)) as PackedPackages;
}

/** Options of {@link writeConsumer}. */
export interface ConsumerOptions {
  /** The packages of the layout the project depends on, by name. */
  packages: readonly string[];
  /** Other dependencies, name -> range, as a user's project lists them. */
  dependencies?: Record<string, string>;
  /** The manifest to start from (an example project's); default an empty private project. */
  manifest?: Record<string, unknown>;
}

/**
 * Writes (or rewrites) `consumer/package.json` so that it depends on the named packages' tarballs, with the
 * other packages of the layout reachable through `overrides` as they would be from a registry.
 */
export function writeConsumer(consumer: string, packed: PackedPackages, options: ConsumerOptions): void {
  const manifest: Record<string, unknown> = options.manifest ?? {
    name: 'consumer',
    version: '1.0.0',
    private: true,
  };
  const dependencies = {
    ...((manifest.dependencies as Record<string, string> | undefined) ?? {}),
    ...options.dependencies,
  };
  const overrides = { ...((manifest.overrides as Record<string, string> | undefined) ?? {}) };
  for (const [name, { tarball }] of Object.entries(packed)) {
    if (options.packages.includes(name)) dependencies[name] = `file:${tarball}`;
    else {
      delete dependencies[name];
      overrides[name] = `file:${tarball}`;
    }
  }
  for (const name of options.packages)
    assert.ok(packed[name] !== undefined, `${name} is not a packed package`);
  fs.mkdirSync(consumer, { recursive: true });
  fs.writeFileSync(
    path.join(consumer, 'package.json'),
    JSON.stringify({ ...manifest, dependencies, overrides }, null, 2),
  );
}

/** The size of a folder's files in bytes (links not followed). */
export function folderBytes(folder: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) total += folderBytes(full);
    else if (entry.isFile()) total += fs.statSync(full).size;
  }
  return total;
}
