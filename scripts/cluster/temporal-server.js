/**
 * The Temporal server, configured the way the `temporalio/server` image configures it. Since 1.31 the image
 * runs a bare `temporal-server start`, and with no config flag the server renders its configuration from the
 * environment through the template embedded in it (`common/config/config_template_embedded.yaml`, the same
 * template as `docker/config_template.yaml`). So the cluster runs that binary the same way, with the
 * environment docker-compose.yml gives the `temporal` service (DB=postgres12, POSTGRES_USER, POSTGRES_PWD, ...:
 * PostgreSQL persistence and SQL visibility), changed only where a container network differs from loopback:
 * the database's address and port, `BIND_ON_IP`, each service's ports, and the dynamic config file's path.
 *
 * The environment is written to `<dataDir>/temporal-server.env` for whoever wants to see what the server ran with.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const { HOST, SERVER_PORT_NAMES } = require('./ports');
const { startProcess, waitUntilReady } = require('./processes');

/** As compose's `temporal-namespace` waits for the server: `temporal operator cluster health` 90 times, 2 s apart. */
const HEALTH_INTERVAL_MS = 2_000;
const HEALTH_TIMEOUT_MS = 90 * HEALTH_INTERVAL_MS;
/** SIGTERM is the server's own clean shutdown (it stops on SIGINT and SIGTERM). */
const STOP_SIGNAL = 'SIGTERM';
const STOP_GRACE_MS = 30_000;

/**
 * The server's environment: compose's `temporal` service environment with the cluster's addresses and ports.
 *
 * @param {{ settings: ReturnType<typeof import('./compose').readComposeSettings>,
 *   ports: Record<string, number>, dynamicConfigFile: string }} options
 * @returns {Record<string, string>}
 */
function serverEnvironment(options) {
  const { settings, ports } = options;
  const environment = {
    ...settings.serverEnvironment,
    POSTGRES_SEEDS: HOST,
    DB_PORT: String(ports.postgres),
    // The image binds 0.0.0.0 inside its container; here every service stays on loopback.
    BIND_ON_IP: HOST,
    // The server image's default path (/etc/temporal/config/dynamicconfig/docker.yaml), from the same file.
    DYNAMIC_CONFIG_FILE_PATH: options.dynamicConfigFile,
  };
  for (const name of SERVER_PORT_NAMES) environment[name] = String(ports[name]);
  return environment;
}

/** Writes the environment as `NAME=value` lines. */
function writeEnvironmentFile(file, environment) {
  const lines = Object.entries(environment).map(([name, value]) => `${name}=${value}`);
  fs.writeFileSync(
    file,
    `# The environment temporal-server renders its configuration from (written by npm run cluster).\n${lines.join('\n')}\n`,
  );
}

/**
 * Starts the server and resolves once `temporal operator cluster health` says it serves.
 *
 * @param {{ binary: string, environment: Record<string, string>, dataDir: string, temporalCli: string,
 *   onSpawn?: (child: import('node:child_process').ChildProcess) => void }} options
 * @returns {Promise<import('./processes').ManagedProcess>}
 */
async function startTemporalServer(options) {
  const { environment } = options;
  writeEnvironmentFile(path.join(options.dataDir, 'temporal-server.env'), environment);
  const address = `${HOST}:${environment.FRONTEND_GRPC_PORT}`;
  // Nothing of this process's environment reaches the template: the server reads only what is set here.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', ...environment };
  // --allow-no-auth: the stack has no authorizer on purpose; the flag says so instead of a warning at each start.
  const server = startProcess('temporal-server', options.binary, ['--allow-no-auth', 'start'], {
    env,
    logFile: path.join(options.dataDir, 'temporal-server.log'),
    ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
  });
  await waitUntilReady(
    `answer \`temporal operator cluster health\` at ${address}`,
    options.temporalCli,
    ['operator', 'cluster', 'health', '--address', address],
    { timeoutMs: HEALTH_TIMEOUT_MS, intervalMs: HEALTH_INTERVAL_MS, probeTimeoutMs: 10_000, process: server },
  );
  return server;
}

/** Stops the server by its pid: SIGTERM, then SIGKILL if it is still running after 30 s. */
async function stopTemporalServer(server) {
  return await server.stop(STOP_SIGNAL, STOP_GRACE_MS);
}

module.exports = { serverEnvironment, startTemporalServer, stopTemporalServer };
