/**
 * The ask-user worker of the fleet part (`fleet-pending.ts`): `createAskUserWorker` from the built package
 * (`dist/`, with its prebuilt workflow bundle), as `worker-process.js` runs it, with one difference: the SDK's
 * core exports its metrics on a Prometheus endpoint, so that the worker's own gRPC calls can be counted. The
 * worker's calls go through the SDK's Rust core, where a grpc-js interceptor (`grpc-calls.ts`) cannot see them;
 * the core counts each in `temporal_request` or `temporal_long_request` (polls) by operation.
 *
 *   fleet-worker.js <server address> <task queue> <metrics port>
 *
 * It reports `ready` over IPC once polling, and shuts down on a `stop` message or when the parent goes away.
 */
'use strict';

const path = require('node:path');
const { DefaultLogger, NativeConnection, Runtime } = require('@temporalio/worker');

const DIST_WORKER = path.join(__dirname, '..', 'dist', 'worker');

async function main() {
  const [address = '', taskQueue = '', metricsPort = ''] = process.argv.slice(2);
  if (address === '' || taskQueue === '' || !/^\d+$/.test(metricsPort))
    throw new Error('usage: fleet-worker.js <address> <task queue> <metrics port>');
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}` } } },
  });
  const createdAt = performance.now();
  const connection = await NativeConnection.connect({ address });
  const { createAskUserWorker } = require(DIST_WORKER);
  const worker = await createAskUserWorker({
    connection,
    namespace: 'default',
    taskQueue,
    webhooks: {},
    policy: {},
    shutdownForceTime: '5s',
  });
  const createMs = performance.now() - createdAt;
  const stop = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  process.on('message', (message) => {
    if (message && message.type === 'stop') stop();
  });
  process.on('disconnect', stop);
  const running = worker.run();
  process.send?.({
    type: 'ready',
    createMs,
    maxCachedWorkflows: worker.options.maxCachedWorkflows,
    prebuilt: worker.options.workflowBundle !== undefined,
  });
  try {
    await running;
  } finally {
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`fleet worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
