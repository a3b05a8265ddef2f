#!/usr/bin/env node
/**
 * `npm run cluster`: starts the production-like cluster (scripts/cluster/index.js), prints its address, and
 * runs until SIGINT or SIGTERM, which stop the server and then PostgreSQL by their process ids.
 *
 *   npm run cluster                         data in .data/cluster, ports picked once and kept there
 *   npm run cluster -- --data-dir DIR --port 7233
 *   node scripts/cluster/cli.js --build-only  build (or find) the server binaries and exit
 */
'use strict';

const { parseArgs } = require('node:util');

const { readComposeSettings } = require('./compose');
const { DEFAULT_DATA_DIR, startCluster } = require('./index');
const { ensureServerBinaries } = require('./server-binaries');

const USAGE = 'usage: npm run cluster [-- [--data-dir DIR] [--port N] [--build-only]]';

function say(line) {
  console.log(`cluster: ${line}`);
}

function parseCommandLine(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      'build-only': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
    throw new Error(`--port must be a port number, not "${values.port}"`);
  }
  return {
    dataDir: values['data-dir'] ?? DEFAULT_DATA_DIR,
    port,
    buildOnly: values['build-only'] === true,
    help: values.help === true,
  };
}

/** Resolves with the first of SIGINT and SIGTERM; from then on both are ours, not Node's default exit. */
function firstSignal() {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => resolve(signal));
  });
}

async function main() {
  const options = parseCommandLine(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return;
  }
  if (options.buildOnly) {
    await ensureServerBinaries({ version: readComposeSettings().temporalVersion, log: say });
    return;
  }

  // Listening from the start: a Ctrl-C while it starts waits for the start, then stops what was started.
  const signalled = firstSignal();
  let unexpected;
  const crashed = new Promise((resolve) => {
    unexpected = resolve;
  });
  const started = Date.now();
  const cluster = await startCluster({
    dataDir: options.dataDir,
    ...(options.port === undefined ? {} : { port: options.port }),
    log: say,
    onUnexpectedExit: (message) => unexpected(message),
  });
  say(
    `ready in ${((Date.now() - started) / 1000).toFixed(1)} s: Temporal server ${cluster.temporalVersion} on PostgreSQL ${cluster.postgresMajor}`,
  );
  say(`address ${cluster.address}, namespace ${cluster.namespace}, data in ${cluster.dataDir}`);
  say(`pids: temporal-server ${cluster.pids.server}, postgres ${cluster.pids.postgres}`);
  console.log(
    `\n  TEMPORAL_ADDRESS=${cluster.address} npx ask-user worker\n  TEMPORAL_ADDRESS=${cluster.address} npx ask-user list\n`,
  );
  say('Ctrl-C stops it');

  const outcome = await Promise.race([
    signalled.then((signal) => ({ signal })),
    crashed.then((message) => ({ message })),
  ]);
  if ('message' in outcome) console.error(`cluster: ${outcome.message}; stopping the rest`);
  else
    say(
      `${outcome.signal}: stopping temporal-server ${cluster.pids.server ?? ''}, then postgres ${cluster.pids.postgres ?? ''}`,
    );
  await cluster.stop();
  say('stopped');
  if ('message' in outcome) process.exitCode = 1;
}

main().then(
  () => process.exit(),
  (error) => {
    console.error(`cluster: ${error instanceof Error ? error.message : String(error)}`);
    if (String(error?.code).startsWith('ERR_PARSE_ARGS')) console.error(USAGE);
    process.exit(1);
  },
);
