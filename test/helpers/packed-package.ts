/**
 * The package as a user gets it: `npm pack` (whose `prepack` builds `dist/` and the workflow bundle) in a copy
 * of the sources, with the checkout's node_modules linked in for the build tools, so the checkout's own
 * `dist/` is neither used nor touched; then consumer projects that `npm install` the tarball.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { PROJECT_ROOT } from '../fixtures/child-process';

/** What the pack needs from the checkout: the sources, the build configuration and the shipped extras. */
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
];
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

/** A packed tarball and the files it holds. */
export interface PackedPackage {
  tarball: string;
  files: string[];
}

/** Packs the checkout into `directory` (which must exist). */
export function packPackage(directory: string): PackedPackage {
  const source = path.join(directory, 'source');
  fs.mkdirSync(source);
  for (const entry of SOURCES) {
    fs.cpSync(path.join(PROJECT_ROOT, entry), path.join(source, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(source, 'node_modules'), 'dir');
  // The build's own output comes first on stdout; npm's JSON report is the last thing printed.
  const output = runOk('npm', ['pack', '--json', '--pack-destination', directory, ...NPM_FLAGS], source);
  const packed = JSON.parse(output.slice(output.lastIndexOf('\n[\n') + 1)) as {
    filename: string;
    files: { path: string }[];
  }[];
  return {
    tarball: path.join(directory, packed[0]!.filename),
    files: packed[0]!.files.map((file) => file.path).sort(),
  };
}
