/**
 * The stack the CLI end-to-end tests run `node ./bin/ask-user.js` against: a dev server, an ask-user worker on
 * `taskQueue`, and the durable provider an agent asks through.
 */
import { TemporalUserInteraction } from '../../src/provider';
import { killChildren, startChild } from '../fixtures/child-process';
import { startDevServerWithClient, type DevServerWithClient } from './temporal';
import { startAskUserWorker, type AskUserTestWorkerOptions, type RunningWorkers } from './workers';

/** How one `ask-user` run ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A running {@link startCliStack}. */
export interface CliStack {
  stack: DevServerWithClient;
  provider: TemporalUserInteraction;
  /** Runs `ask-user <args>` to the end against the stack's server and task queue, as user `cli-tester`. */
  run(args: string[]): Promise<CliRun>;
  /** Kills the CLI children still running, closes the provider, stops the worker and the server. */
  stop(): Promise<void>;
}

/** Starts a dev server named `name`, a worker on `taskQueue` with `workerOptions`, and a provider asking on it. */
export async function startCliStack(
  name: string,
  taskQueue: string,
  workerOptions: Omit<AskUserTestWorkerOptions, 'taskQueue' | 'namespace'> = {},
): Promise<CliStack> {
  const stack = await startDevServerWithClient(name);
  let worker: RunningWorkers;
  try {
    worker = await startAskUserWorker(stack.server.address, taskQueue, 'default', workerOptions);
  } catch (error) {
    await stack.stop();
    throw error;
  }
  const provider = new TemporalUserInteraction({ client: stack.client, taskQueue });
  return {
    stack,
    provider,
    async run(args) {
      const child = startChild(process.execPath, ['./bin/ask-user.js', ...args], {
        TEMPORAL_ADDRESS: stack.server.address,
        TEMPORAL_NAMESPACE: 'default',
        ASK_USER_TASK_QUEUE: taskQueue,
        USER: 'cli-tester',
      });
      const exit = await child.waitForExit();
      return { code: exit.code, stdout: child.stdout(), stderr: child.stderr() };
    },
    async stop() {
      try {
        await killChildren();
        await provider.close();
      } finally {
        await worker.stop();
        await stack.stop();
      }
    },
  };
}
