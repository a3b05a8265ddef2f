/**
 * Projects that install one package of packages/layout.js alone, from the tarballs of
 * test/helpers/packed-package.ts: the install (with what npm printed), what landed in `node_modules`, and
 * plain `node` (no tsx) or the package's own commands run there.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { PACKAGES } from '../../packages/layout';
import { startChild, type RunningChild } from '../fixtures/child-process';
import { folderBytes, run, runOk, writeConsumer, type PackedPackages } from './packed-package';
import { processGroupExists } from './processes';
import { waitFor } from './wait';

/** The names of our packages, in the layout's order. */
export const OUR_PACKAGES: readonly string[] = PACKAGES.map((layout) => layout.name);

/** The scripts npm runs when a package is installed (`prepare` too, for a git or folder dependency). */
export const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

/** A project with one of our packages installed. */
export interface Consumer {
  /** The package it depends on. */
  name: string;
  directory: string;
  nodeModules: string;
  /** What `npm install` printed, warnings included. */
  installOutput: string;
}

/**
 * Writes a project depending on `name` alone into `directory` and installs it, preferring npm's cache. At the
 * warn level, where npm 11 lists the packages whose install scripts it has not been allowed to run.
 */
export function installConsumer(directory: string, packed: PackedPackages, name: string): Consumer {
  writeConsumer(directory, packed, { packages: [name] });
  const install = run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn'],
    directory,
  );
  const installOutput = `${install.stdout}${install.stderr}`;
  assert.equal(install.status, 0, `npm install of ${name} failed:\n${installOutput}`);
  return { name, directory, nodeModules: path.join(directory, 'node_modules'), installOutput };
}

/** One package folder under a `node_modules`. */
export interface InstalledPackage {
  name: string;
  folder: string;
}

/** Every package folder (one holding a package.json) under `nodeModules`, nested `node_modules` included. */
export function installedPackages(nodeModules: string): InstalledPackage[] {
  const found: InstalledPackage[] = [];
  const visitPackage = (folder: string, name: string): void => {
    if (!fs.existsSync(path.join(folder, 'package.json'))) return;
    found.push({ name, folder });
    const nested = path.join(folder, 'node_modules');
    if (fs.existsSync(nested)) visitModules(nested);
  };
  const visitModules = (modules: string): void => {
    for (const entry of fs.readdirSync(modules, { withFileTypes: true })) {
      // .bin and npm's hidden lockfile.
      if (entry.name.startsWith('.')) continue;
      const full = path.join(modules, entry.name);
      if (!entry.name.startsWith('@')) {
        visitPackage(full, entry.name);
        continue;
      }
      for (const scoped of fs.readdirSync(full))
        visitPackage(path.join(full, scoped), `${entry.name}/${scoped}`);
    }
  };
  visitModules(nodeModules);
  return found;
}

/** Whether `name` matches `pattern`: a package name, or `@scope/*` for every package of a scope. */
export function matchesPackage(name: string, pattern: string): boolean {
  return pattern.endsWith('/*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/**
 * The packages npm named, in `output`, among those whose install scripts it has not been allowed to run:
 * npm 11 prints `npm warn install-scripts   <name>@<version> (<script>: ...)` for each. Earlier versions print
 * no such list, and this is empty.
 */
export function packagesWithInstallScripts(output: string): string[] {
  return [...output.matchAll(/^npm warn install-scripts\s+((?:@[^/\s]+\/)?[^@\s]+)@\S+ \(/gm)].map(
    (match) => match[1]!,
  );
}

/** For each of our packages installed in `consumer`, the install-time scripts its manifest carries. */
export function ourInstallScripts(consumer: Consumer): Record<string, string[]> {
  const scripts: Record<string, string[]> = {};
  for (const { name, folder } of installedPackages(consumer.nodeModules)) {
    if (!OUR_PACKAGES.includes(name)) continue;
    const manifest = readManifest(folder);
    scripts[name] = INSTALL_SCRIPTS.filter((script) => manifest.scripts?.[script] !== undefined);
    // npm runs `node-gyp rebuild` for a package with a binding.gyp and no install script of its own.
    if (fs.existsSync(path.join(folder, 'binding.gyp'))) scripts[name].push('binding.gyp');
  }
  return scripts;
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

function readManifest(folder: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as Manifest;
}

/** What installing one package alone costs. */
export interface InstallFigures {
  name: string;
  /** The size of `node_modules`: the sum of its files' sizes ({@link folderBytes}), in MiB. */
  mebibytes: number;
  /** The `dependencies` of the package's manifest. */
  directDependencies: number;
  /** The package folders under `node_modules`, the package itself included. */
  installedPackages: number;
}

export function installFigures(consumer: Consumer): InstallFigures {
  const manifest = readManifest(path.join(consumer.nodeModules, consumer.name));
  return {
    name: consumer.name,
    mebibytes: folderBytes(consumer.nodeModules) / 2 ** 20,
    directDependencies: Object.keys(manifest.dependencies ?? {}).length,
    installedPackages: installedPackages(consumer.nodeModules).length,
  };
}

/** The figures as a table, one package a row. */
export function figuresTable(figures: readonly InstallFigures[]): string {
  const rows = [
    ['package installed alone', 'node_modules MiB', 'direct deps', 'packages installed'],
    ...figures.map((row) => [
      row.name,
      row.mebibytes.toFixed(1),
      String(row.directDependencies),
      String(row.installedPackages),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!)))
        .join('  '),
    )
    .join('\n');
}

/** Runs `code` with plain node (no tsx) in the consumer and returns its stdout, trimmed. */
export function nodeIn(consumer: Consumer, code: string): string {
  return runOk(process.execPath, ['-e', code], consumer.directory).trim();
}

/** Writes `code` into the consumer as `file` and starts it with plain node, with `env` added. */
export function startScript(
  consumer: Consumer,
  file: string,
  code: string,
  env: Record<string, string>,
): RunningChild {
  fs.writeFileSync(path.join(consumer.directory, file), code);
  return startChild(process.execPath, [file], env, { cwd: consumer.directory });
}

/**
 * Starts `npx --no -- ask-user <args>` in the consumer, as a user of the installed package runs it (`--no`:
 * never fetch a package of that name from the registry). In a process group of its own, for
 * {@link interruptGroup}.
 */
export function startAskUser(
  consumer: Consumer,
  args: readonly string[],
  env: Record<string, string> = {},
): RunningChild {
  return startChild('npx', ['--no', '--', 'ask-user', ...args], env, {
    cwd: consumer.directory,
    detached: true,
  });
}

/** Runs `npx --no -- ask-user <args>` to its end, failing with its output unless it exits 0; returns stdout. */
export async function askUser(
  consumer: Consumer,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<string> {
  const child = startAskUser(consumer, args, env);
  const exit = await child.waitForExit();
  assert.deepEqual(
    exit,
    { code: 0, signal: null },
    `ask-user ${args.join(' ')}:\n${child.stdout()}${child.stderr()}`,
  );
  return child.stdout();
}

/**
 * Sends SIGINT to the process group `child` leads, as Ctrl-C in a terminal does, and waits until nothing is
 * left in the group: the command has stopped what it started (`ask-user dev` its Temporal server). npx runs
 * the command under `sh -c`, and npm passes a signal on to that shell only: the command gets it from the
 * group, as it would from the terminal.
 */
export async function interruptGroup(child: RunningChild, timeoutMs = 30_000): Promise<void> {
  if (processGroupExists(child.pid)) process.kill(-child.pid, 'SIGINT');
  await child.waitForExit(timeoutMs);
  await waitFor(
    `the processes of ${child.process.spawnargs.join(' ')} to exit`,
    () => (processGroupExists(child.pid) ? undefined : true),
    timeoutMs,
  );
}
