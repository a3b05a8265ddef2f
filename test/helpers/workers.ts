/**
 * In-process workers for tests: an ask-user worker configured the way every test runs one, and a handle that
 * stops workers and surfaces how their runs ended. (Workers that tests SIGKILL run as child processes instead:
 * see test/fixtures/worker-process.ts.)
 */
import {
  DefaultLogger,
  NativeConnection,
  bundleWorkflowCode,
  type Worker,
  type WorkflowBundle,
} from '@temporalio/worker';

import {
  createAskUserWorker,
  workflowsPath,
  workflowsWithWorkerDefaultsPath,
  type AskUserWorkerOptions,
} from '../../src/worker';
import { payloadConverterPath } from '../../src/worker/worker';

/**
 * The ask-user workflows bundled once, as `createAskUserWorker` bundles them (with its tolerant payload
 * converter), for test files that start several workers and pass the bundle as `workflowBundle`: with
 * `workerDefaults`, the entry of a worker that has webhook URLs or a policy.
 */
export async function bundleAskUserWorkflows(options: { workerDefaults: boolean }): Promise<WorkflowBundle> {
  return await bundleWorkflowCode({
    workflowsPath: options.workerDefaults ? workflowsWithWorkerDefaultsPath : workflowsPath,
    payloadConverterPath,
    logger: new DefaultLogger('WARN'),
  });
}

/** Options of {@link createAskUserTestWorker}: those of `createAskUserWorker` that differ between tests. */
export type AskUserTestWorkerOptions = Omit<
  AskUserWorkerOptions,
  'connection' | 'taskQueue' | 'shutdownForceTime'
> & {
  /** Unique per test file (or per test), so workers of concurrent test files never take each other's tasks. */
  taskQueue: string;
};

/**
 * An ask-user worker on `connection`, in the `default` namespace unless `options.namespace` says otherwise. It is forced down 5 s after `shutdown()`, so
 * a failing test never hangs on it, and it sends no webhooks unless `options.webhooks` says so: whatever
 * `ASK_USER_WEBHOOK_URLS` the test runner has must not leak into the questions.
 */
export async function createAskUserTestWorker(
  connection: NativeConnection,
  options: AskUserTestWorkerOptions,
): Promise<Worker> {
  return await createAskUserWorker({
    connection,
    namespace: 'default',
    shutdownForceTime: '5s',
    webhooks: {},
    // No stray ASK_USER_POLICY from the environment reaches a test worker.
    policy: {},
    ...options,
  });
}

/** Workers started by {@link runWorkers}. */
export interface RunningWorkers {
  /**
   * Shuts down the workers still running, waits until every run has ended and rethrows the first error a run
   * ended with. Calling it again only waits (and rethrows) again.
   */
  stop(): Promise<void>;
}

/** Runs `workers` until `stop()`. */
export function runWorkers(workers: Worker[]): RunningWorkers {
  const runs = workers.map((worker) => worker.run());
  return {
    async stop() {
      for (const worker of workers) {
        if (worker.getState() === 'RUNNING') worker.shutdown();
      }
      const outcomes = await Promise.allSettled(runs);
      for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
    },
  };
}

/**
 * Connects to the server at `address` and runs an ask-user worker on `taskQueue` in `namespace` (see
 * {@link createAskUserTestWorker}, whose other options `options` passes on); `stop()` also closes the connection.
 */
export async function startAskUserWorker(
  address: string,
  taskQueue: string,
  namespace = 'default',
  options: Omit<AskUserTestWorkerOptions, 'taskQueue' | 'namespace'> = {},
): Promise<RunningWorkers> {
  const connection = await NativeConnection.connect({ address });
  let running: RunningWorkers;
  try {
    running = runWorkers([await createAskUserTestWorker(connection, { ...options, taskQueue, namespace })]);
  } catch (error) {
    await connection.close();
    throw error;
  }
  let stopped: Promise<void> | undefined;
  const stopAndClose = async (): Promise<void> => {
    try {
      await running.stop();
    } finally {
      await connection.close();
    }
  };
  return {
    stop: () => (stopped ??= stopAndClose()),
  };
}
