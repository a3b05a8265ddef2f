/**
 * The Temporal server and `temporal-sql-tool`, built from the Go module `go.temporal.io/server` at the version
 * docker-compose.yml pins, into the per-user cache: `<cache>/temporal-server-<version>/`. The folder holds what
 * the two images hold at the same paths under /etc/temporal: the binaries and the PostgreSQL schema the
 * admin-tools image carries (`schema/postgresql/v12/<store>/versioned`). The dynamic config file is the one
 * docker-compose.yml mounts (deploy/temporal-dynamic-config.yaml).
 *
 * A build goes to a staging folder that is renamed into place only when complete, so a build that failed or
 * was interrupted never counts as cached, and two builds at once both end with one complete folder.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { cacheDir } = require('../../src/dev-server/ensure-temporal.js');
const { run } = require('./processes');

const MODULE = 'go.temporal.io/server';
/** The packages behind the `temporal-server` and `temporal-sql-tool` binaries, and the names `go install` gives. */
const BINARIES = [
  { name: 'temporal-server', package: 'cmd/server', installedAs: 'server' },
  { name: 'temporal-sql-tool', package: 'cmd/tools/sql', installedAs: 'sql' },
];
/** What is copied from the module's source next to the binaries. */
const SCHEMA_STORES = ['temporal', 'visibility'];
/** A cold build of the server on two cores takes minutes; far beyond that something is wrong. */
const BUILD_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * @typedef {object} ServerBinaries
 * @property {string} version
 * @property {string} dir
 * @property {string} server  the `temporal-server` binary
 * @property {string} sqlTool  the `temporal-sql-tool` binary
 * @property {string} schemaDir  holds `postgresql/v12/<store>/versioned`, as /etc/temporal/schema does
 * @property {number | undefined} buildSeconds  set when this call built them; undefined when cached
 */

/** @param {string} version */
function layout(version, dir = path.join(cacheDir(), `temporal-server-${version}`)) {
  return {
    version,
    dir,
    server: path.join(dir, 'temporal-server'),
    sqlTool: path.join(dir, 'temporal-sql-tool'),
    schemaDir: path.join(dir, 'schema'),
  };
}

/** @param {string} file */
function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** True when `dir` holds both binaries, executable, and everything copied from the module. */
function isComplete(paths) {
  return (
    isExecutable(paths.server) &&
    isExecutable(paths.sqlTool) &&
    SCHEMA_STORES.every((store) => fs.existsSync(versionedSchemaDir(paths.schemaDir, store)))
  );
}

/** Where `update-schema -d` finds a store's versioned schema under a schema folder. */
function versionedSchemaDir(schemaDir, store) {
  return path.join(schemaDir, 'postgresql', 'v12', store, 'versioned');
}

/** `GO`, else `go` on PATH, else the official install location. */
function goBinary(env = process.env) {
  if (env.GO) return env.GO;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir !== '' && isExecutable(path.join(dir, 'go'))) return path.join(dir, 'go');
  }
  if (isExecutable('/usr/local/go/bin/go')) return '/usr/local/go/bin/go';
  throw new Error(
    `no Go toolchain: building ${MODULE} needs Go (https://go.dev/dl/); put it on PATH or set GO to its binary`,
  );
}

/**
 * Copies a folder of the read-only module cache as ordinary files (0644, folders 0755), so that the cache
 * folder can be removed like any other.
 */
function copyTree(from, to) {
  fs.mkdirSync(to, { recursive: true, mode: 0o755 });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target);
    else {
      fs.copyFileSync(source, target);
      fs.chmodSync(target, 0o644);
    }
  }
}

/** Adds the way out to a toolchain refusal: the module asks for a newer Go than the one installed. */
function explainBuildFailure(error, version) {
  if (/requires go >=|go\.mod requires go/i.test(error.message)) {
    error.message +=
      `\n${MODULE}@v${version} needs a newer Go than this one: export GOTOOLCHAIN=go1.27.3 ` +
      '(the Go module proxy serves that toolchain; go downloads it) and run again';
  }
  return error;
}

/**
 * Builds the two binaries with the flags of the module's own Makefile (`CGO_ENABLED=0`, `-tags
 * disable_grpc_modules`), which the official images are built with, and copies the schema.
 */
async function build(paths, log) {
  const go = goBinary();
  // Outside any Go module, so that `go` resolves the module by its version alone.
  const goOptions = { cwd: os.tmpdir(), timeoutMs: BUILD_TIMEOUT_MS };
  const goVersion = (await run(go, ['version'], goOptions)).stdout.trim();
  log(`building temporal-server and temporal-sql-tool ${paths.version} from ${MODULE} with ${goVersion}`);
  const started = Date.now();
  const moduleAtVersion = `${MODULE}@v${paths.version}`;
  // The module's source, for the schema files; `go install` below reuses this download.
  const downloaded = JSON.parse(
    (await run(go, ['mod', 'download', '-json', moduleAtVersion], goOptions)).stdout,
  );
  if (typeof downloaded.Dir !== 'string')
    throw new Error(`go mod download ${moduleAtVersion} gave no Dir: ${downloaded.Error ?? ''}`);

  fs.mkdirSync(path.dirname(paths.dir), { recursive: true });
  const staging = fs.mkdtempSync(`${paths.dir}.staging-`);
  try {
    fs.chmodSync(staging, 0o755); // mkdtemp's 0700 would become the cache folder's
    const buildEnv = { ...process.env, GOBIN: staging, CGO_ENABLED: '0' };
    const packages = BINARIES.map((binary) => `${MODULE}/${binary.package}@v${paths.version}`);
    await run(go, ['install', '-tags', 'disable_grpc_modules', ...packages], {
      ...goOptions,
      env: buildEnv,
    }).catch((error) => {
      throw explainBuildFailure(error, paths.version);
    });
    for (const binary of BINARIES) {
      fs.renameSync(path.join(staging, binary.installedAs), path.join(staging, binary.name));
    }
    const staged = layout(paths.version, staging);
    for (const store of SCHEMA_STORES) {
      copyTree(
        versionedSchemaDir(path.join(downloaded.Dir, 'schema'), store),
        versionedSchemaDir(staged.schemaDir, store),
      );
    }

    // An incomplete folder from an interrupted older layout goes; a complete one another build just placed stays.
    if (fs.existsSync(paths.dir) && !isComplete(paths))
      fs.rmSync(paths.dir, { recursive: true, force: true });
    try {
      fs.renameSync(staging, paths.dir);
    } catch (error) {
      if (!['ENOTEMPTY', 'EEXIST'].includes(error.code) || !isComplete(paths)) throw error;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return (Date.now() - started) / 1000;
}

/**
 * The binaries for `version`: from the cache when a complete build is there, else built now.
 *
 * @param {{ version: string, log?: (line: string) => void }} options
 * @returns {Promise<ServerBinaries>}
 */
async function ensureServerBinaries(options) {
  const log = options.log ?? (() => undefined);
  const paths = layout(options.version);
  if (isComplete(paths)) {
    log(`temporal-server ${options.version}: cached in ${paths.dir}`);
    return { ...paths, buildSeconds: undefined };
  }
  const buildSeconds = await build(paths, log);
  log(`temporal-server ${options.version}: built in ${buildSeconds.toFixed(1)} s into ${paths.dir}`);
  return { ...paths, buildSeconds };
}

module.exports = { ensureServerBinaries, versionedSchemaDir };
