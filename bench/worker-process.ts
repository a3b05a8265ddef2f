/**
 * A benchmark worker in its own process, so that its CPU time and memory are read apart from the agent's and
 * the server's. Started by `bench/processes.ts` with `fork`:
 *
 *   worker-process.ts <ours|floor> <server address> <task queue>
 *
 * `ours` is `createAskUserWorker` with its defaults (no webhook configured); `floor` runs the minimal workflows
 * of `floor-workflows.ts` on a plain SDK worker, also with the SDK's defaults. It reports `ready` over IPC once
 * polling, and shuts down on a `stop` message or when the parent goes away.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';

import { createAskUserWorker } from '../src/temporal';
import type { WorkerMessage } from './processes';

async function createWorker(kind: string, connection: NativeConnection, taskQueue: string): Promise<Worker> {
  switch (kind) {
    case 'ours':
      return await createAskUserWorker({
        connection,
        namespace: 'default',
        taskQueue,
        webhooks: {},
        shutdownForceTime: '5s',
      });
    case 'floor':
      return await Worker.create({
        connection,
        namespace: 'default',
        taskQueue,
        workflowsPath: require.resolve('./floor-workflows'),
        shutdownForceTime: '5s',
      });
    default:
      throw new Error(`worker kind must be "ours" or "floor", received ${JSON.stringify(kind)}`);
  }
}

function send(message: WorkerMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const [kind = '', address = '', taskQueue = ''] = process.argv.slice(2);
  if (address === '' || taskQueue === '')
    throw new Error('usage: worker-process.ts <ours|floor> <address> <task queue>');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const createdAt = performance.now();
  const connection = await NativeConnection.connect({ address });
  const worker = await createWorker(kind, connection, taskQueue);
  const createMs = performance.now() - createdAt;
  const stop = (): void => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'stop') stop();
  });
  process.on('disconnect', stop);
  const running = worker.run();
  send({ type: 'ready', createMs, maxCachedWorkflows: worker.options.maxCachedWorkflows });
  try {
    await running;
  } finally {
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
