/**
 * The packages as a user gets them: `npm run build` and `npm pack` of each package of packages/layout.js in a
 * copy of the sources, with the checkout's node_modules linked in for the build tools, so the checkout's own
 * `dist/` is neither used nor touched; then consumer projects that `npm install` the tarballs.
 *
 * The packages are not on a registry, so a consumer that depends on one package gets its sibling
 * dependencies from the tarballs through `overrides`, which is what npm would fetch from the registry.
 *
 * A build takes minutes of CPU and several test files need one, so the tarballs are kept under the system's
 * temporary folder by a hash of everything the build reads: the files of one run (and of a later run on the same
 * sources) share one build, and any change to a source, a manifest or the lock file makes a new one.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
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

/** Where packed builds are kept, one folder per hash of their sources. */
const PACK_CACHE = path.join(os.tmpdir(), 'durable-ask-user-packs');
/** How long a file waits for another one's build of the same sources. */
const PACK_LOCK_WAIT_MS = 20 * 60_000;

/** A hash of every file the build reads from the checkout, and of the lock file that fixes the build tools. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const visit = (relative: string): void => {
    const full = path.join(PROJECT_ROOT, relative);
    if (fs.statSync(full).isDirectory()) {
      for (const name of fs.readdirSync(full).sort()) {
        const child = `${relative}/${name}`;
        if (!BUILT.test(child)) visit(child);
      }
      return;
    }
    hash.update(`${relative}\0`).update(fs.readFileSync(full)).update('\0');
  };
  for (const entry of [...SOURCES, 'package-lock.json']) visit(entry);
  return hash.digest('hex').slice(0, 20);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `work` holding `lock` (a folder holding its owner's pid): another test file building the same sources
 * waits for it instead of building twice. A lock whose owner died is taken over.
 */
function withLock<T>(lock: string, work: () => T): T {
  const deadline = Date.now() + PACK_LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(
        fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }),
        10,
      );
      if (Number.isInteger(owner) && !isAlive(owner)) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) {
        throw new Error(`${lock} held by pid ${owner} for too long`, { cause: error });
      } else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    }
  }
  fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
  try {
    return work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds a copy of the checkout's sources in `directory` and packs every package there. */
function buildAndPack(directory: string): PackedPackages {
  const source = path.join(directory, 'source');
  fs.mkdirSync(source, { recursive: true });
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
  fs.rmSync(source, { recursive: true, force: true });
  return JSON.parse(output.slice(output.lastIndexOf('\n') + 1)) as PackedPackages;
}

/**
 * Every package of the layout, built from the checkout's sources and packed, with the tarballs copied into
 * `directory` (which must exist). The build is shared with every other caller on the same sources.
 */
export function packPackages(directory: string): PackedPackages {
  fs.mkdirSync(PACK_CACHE, { recursive: true });
  const cached = path.join(PACK_CACHE, sourcesHash());
  const report = path.join(cached, 'packed.json');
  withLock(`${cached}.lock`, () => {
    if (fs.existsSync(report)) return;
    fs.rmSync(cached, { recursive: true, force: true });
    fs.writeFileSync(report, JSON.stringify(buildAndPack(cached)), { flag: 'wx' });
  });
  const packed = JSON.parse(fs.readFileSync(report, 'utf8')) as PackedPackages;
  return Object.fromEntries(
    Object.entries(packed).map(([name, { tarball, files }]) => {
      const copy = path.join(directory, path.basename(tarball));
      fs.copyFileSync(tarball, copy);
      return [name, { tarball: copy, files }];
    }),
  );
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

/** The Node 24 binary of scripts/ensure-node.js (from PyPI into .tools on first use): users of Node 24 install too. */
export function node24Binary(): string {
  return execFileSync(process.execPath, ['scripts/ensure-node.js', '24'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  }).trim();
}

/**
 * `npm install` of `consumer` by the npm that comes with `node` (no --force, no --legacy-peer-deps), with that
 * `node` first on PATH for install scripts; fails the test unless it exits 0, and returns what npm printed.
 */
export function installWithNode(node: string, consumer: string): string {
  const bin = path.dirname(node);
  const npm = path.join(bin, '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  const result = spawnSync(
    node,
    [npm, 'install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn'],
    {
      cwd: consumer,
      env: {
        ...process.env,
        PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
        npm_config_update_notifier: 'false',
      },
      encoding: 'utf8',
      timeout: 600_000,
    },
  );
  const output = `${result.stdout}${result.stderr}`;
  assert.equal(result.status, 0, `npm install with ${node} failed:\n${output}`);
  return output;
}

/** Runs `code` with `node` in `consumer`; fails the test unless it exits 0, and returns its stdout, trimmed. */
export function nodeIn(node: string, consumer: string, code: string): string {
  const result = run(node, ['-e', code], consumer, 120_000);
  assert.equal(result.status, 0, `${node} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout.trim();
}
