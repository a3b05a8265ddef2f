/**
 * A benchmark worker in its own process, so that its CPU time and memory are read apart from the agent's and
 * the server's. Plain Node, no TypeScript loader: `ours` is what a user runs, `createAskUserWorker` from the
 * built package (`dist/`, with its prebuilt workflow bundle; `npm run bench` builds first). Started by
 * `bench/run.ts` with `fork`:
 *
 *   worker-process.js <ours|floor> <server address> <task queue>
 *
 * `ours` has its defaults (no webhook URLs, no policy); `floor` runs the minimal workflows of
 * `floor-workflows.ts` on a plain SDK worker, also with the SDK's defaults (the SDK's bundler compiles the
 * TypeScript). It reports `ready` over IPC once polling, and shuts down on a `stop` message or when the parent
 * goes away.
 */
'use strict';

const path = require('node:path');
const { DefaultLogger, NativeConnection, Runtime, Worker } = require('@temporalio/worker');

const DIST_WORKER = path.join(__dirname, '..', 'dist', 'worker');

/** @returns {Promise<import('@temporalio/worker').Worker>} */
async function createWorker(kind, connection, taskQueue) {
  switch (kind) {
    case 'ours': {
      const { createAskUserWorker } = require(DIST_WORKER);
      return await createAskUserWorker({
        connection,
        namespace: 'default',
        taskQueue,
        webhooks: {},
        policy: {},
        shutdownForceTime: '5s',
      });
    }
    case 'floor':
      return await Worker.create({
        connection,
        namespace: 'default',
        taskQueue,
        workflowsPath: require.resolve('./floor-workflows.ts'),
        shutdownForceTime: '5s',
      });
    default:
      throw new Error(`worker kind must be "ours" or "floor", received ${JSON.stringify(kind)}`);
  }
}

async function main() {
  const [kind = '', address = '', taskQueue = ''] = process.argv.slice(2);
  if (address === '' || taskQueue === '')
    throw new Error('usage: worker-process.js <ours|floor> <address> <task queue>');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const createdAt = performance.now();
  const connection = await NativeConnection.connect({ address });
  const worker = await createWorker(kind, connection, taskQueue);
  const createMs = performance.now() - createdAt;
  const stop = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  process.on('message', (message) => {
    if (message && message.type === 'stop') stop();
  });
  process.on('disconnect', stop);
  const running = worker.run();
  const prebuilt = kind === 'ours' && worker.options.workflowBundle !== undefined;
  process.send?.({
    type: 'ready',
    createMs,
    maxCachedWorkflows: worker.options.maxCachedWorkflows,
    prebuilt,
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
    process.stderr.write(`bench worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
