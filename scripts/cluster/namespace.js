/**
 * The `temporal-namespace` service of docker-compose.yml: once the server is healthy (scripts/cluster/
 * temporal-server.js waits for that), `temporal operator namespace describe || create --retention <compose's>`,
 * with the stock Temporal CLI the tests and `ask-user dev` use (scripts/ensure-temporal.js).
 */
'use strict';

const { setTimeout: sleep } = require('node:timers/promises');

const { run } = require('./processes');

/** How long a namespace just created may take to be served (the frontend's namespace cache refreshes). */
const USABLE_TIMEOUT_MS = 60_000;

/**
 * Creates `namespace` unless it exists, then waits until a visibility count in it succeeds: the namespace is
 * known to the frontend and SQL visibility answers, which is what every client of the cluster needs first.
 *
 * @param {{ temporalCli: string, address: string, namespace: string, retention: string,
 *   log: (line: string) => void }} options
 */
async function ensureNamespace(options) {
  const { temporalCli, address, namespace } = options;
  const common = ['--namespace', namespace, '--address', address];
  const exists = await run(temporalCli, ['operator', 'namespace', 'describe', ...common]).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await run(temporalCli, ['operator', 'namespace', 'create', ...common, '--retention', options.retention]);
    options.log(`namespace ${namespace}: created (retention ${options.retention})`);
  }
  const deadline = Date.now() + USABLE_TIMEOUT_MS;
  for (;;) {
    try {
      await run(temporalCli, ['workflow', 'count', ...common], { timeoutMs: 10_000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(
          `namespace ${namespace} at ${address} did not answer a workflow count within ${USABLE_TIMEOUT_MS / 1000} s: ${error.message}`,
          { cause: error },
        );
      }
      await sleep(500);
    }
  }
}

module.exports = { ensureNamespace };
