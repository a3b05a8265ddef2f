#!/usr/bin/env node
/**
 * `node scripts/ensure-toxiproxy.js`: finds or builds the Toxiproxy server that the chaos soak
 * (`npm run soak -- --toxic ...`) and test/integration/blackhole.test.ts put between the clients and the
 * Temporal server, and prints its path.
 *
 * Lookup order:
 *   1. env `TOXIPROXY_SERVER_PATH`: must name an executable file, otherwise this is an error;
 *   2. the per-user build `<cache>/toxiproxy/<version>/bin/toxiproxy-server` (`<cache>` as for the Temporal CLI:
 *      `$ASK_USER_CACHE_DIR`, else `$XDG_CACHE_HOME/durable-ask-user`, else `~/.cache/durable-ask-user`).
 * When neither is there, it is built from its Go module with `go install
 * github.com/Shopify/toxiproxy/v2/cmd/server@<version>` (the Go toolchain from `GO`, else `go` on PATH, else
 * /usr/local/go/bin/go), with GOBIN, GOPATH, GOMODCACHE and GOCACHE all under `<cache>/toxiproxy/`: a second
 * run finds the binary, and a build of another version reuses the downloaded modules.
 *
 * Plain CommonJS with no dependencies, like scripts/ensure-temporal.js.
 */
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { cacheDir, isExecutableFile } = require('../src/dev-server/ensure-temporal.js');

/** The Toxiproxy release built; the newest the Go module proxy serves for the `/v2` module path. */
const TOXIPROXY_VERSION = 'v2.5.0';
const MODULE = 'github.com/Shopify/toxiproxy/v2/cmd/server';
const IS_WINDOWS = process.platform === 'win32';
/** `go install` names the binary after the package's folder, `server`; it is renamed to say what it is. */
const BUILT_NAME = IS_WINDOWS ? 'server.exe' : 'server';
const EXECUTABLE_NAME = IS_WINDOWS ? 'toxiproxy-server.exe' : 'toxiproxy-server';

/** Raised when Toxiproxy is neither found nor buildable; the message says what to install or set. */
class ToxiproxyUnavailableError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ToxiproxyUnavailableError';
  }
}

/** `<cache>/toxiproxy`: the Go module and build caches, and one folder per built version. */
function toxiproxyCacheDir(env = process.env) {
  return path.join(cacheDir(env), 'toxiproxy');
}

/** Where the built binary of {@link TOXIPROXY_VERSION} lives. */
function toxiproxyBinary(env = process.env) {
  return path.join(toxiproxyCacheDir(env), TOXIPROXY_VERSION, 'bin', EXECUTABLE_NAME);
}

function findGo(env) {
  const candidates = [];
  if (env.GO) candidates.push(env.GO);
  const goName = IS_WINDOWS ? 'go.exe' : 'go';
  for (const directory of (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean)) {
    candidates.push(path.join(directory, goName));
  }
  if (!IS_WINDOWS) candidates.push('/usr/local/go/bin/go');
  return candidates.find(isExecutableFile);
}

function lastLines(text, count) {
  return String(text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(-count)
    .join(' | ');
}

/**
 * Finds Toxiproxy without building anything.
 *
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string | undefined}
 * @throws {ToxiproxyUnavailableError} when `TOXIPROXY_SERVER_PATH` is set but is not an executable file.
 */
function findToxiproxy(env = process.env) {
  const fromEnv = env.TOXIPROXY_SERVER_PATH;
  if (fromEnv !== undefined && fromEnv !== '') {
    const resolved = path.resolve(fromEnv);
    if (!isExecutableFile(resolved)) {
      throw new ToxiproxyUnavailableError(
        `TOXIPROXY_SERVER_PATH is set to "${fromEnv}", which is not an executable file`,
      );
    }
    return resolved;
  }
  const cached = toxiproxyBinary(env);
  return isExecutableFile(cached) ? cached : undefined;
}

/**
 * Finds Toxiproxy, building it with `go install` into the per-user cache when it is missing.
 *
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string} the binary's path
 * @throws {ToxiproxyUnavailableError} when there is no Go toolchain or the build fails; the message says why.
 */
function ensureToxiproxy(env = process.env) {
  const found = findToxiproxy(env);
  if (found !== undefined) return found;
  const go = findGo(env);
  if (go === undefined) {
    throw new ToxiproxyUnavailableError(
      `Toxiproxy ${TOXIPROXY_VERSION} is not built yet and no Go toolchain was found (looked at $GO, PATH and ` +
        '/usr/local/go/bin/go): install Go from https://go.dev/dl/, or set TOXIPROXY_SERVER_PATH ' +
        'to a toxiproxy-server binary',
    );
  }
  const root = toxiproxyCacheDir(env);
  const bin = path.dirname(toxiproxyBinary(env));
  fs.mkdirSync(bin, { recursive: true });
  const result = spawnSync(go, ['install', `${MODULE}@${TOXIPROXY_VERSION}`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 15 * 60 * 1000,
    env: {
      ...env,
      GOBIN: bin,
      GOPATH: path.join(root, 'gopath'),
      GOMODCACHE: path.join(root, 'gopath', 'pkg', 'mod'),
      GOCACHE: path.join(root, 'gocache'),
      GOFLAGS: '-modcacherw',
      CGO_ENABLED: '0',
    },
  });
  const built = path.join(bin, BUILT_NAME);
  if (result.error || result.status !== 0 || !isExecutableFile(built)) {
    const reason =
      result.error?.message ?? (lastLines(result.stderr, 3) || `exit code ${String(result.status)}`);
    throw new ToxiproxyUnavailableError(
      `could not build Toxiproxy: ${go} install ${MODULE}@${TOXIPROXY_VERSION} failed: ${reason}`,
    );
  }
  fs.renameSync(built, toxiproxyBinary(env));
  return toxiproxyBinary(env);
}

function main() {
  try {
    console.log(ensureToxiproxy());
  } catch (error) {
    if (error instanceof ToxiproxyUnavailableError) {
      console.error(`ensure-toxiproxy: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

module.exports = {
  TOXIPROXY_VERSION,
  ToxiproxyUnavailableError,
  toxiproxyCacheDir,
  toxiproxyBinary,
  findToxiproxy,
  ensureToxiproxy,
  main,
};

if (require.main === module) main();
