/**
 * `createAskUserWorker`: a Temporal worker that runs durable questions and their webhook deliveries.
 * Node-only. `@temporalio/worker` (with its native core and bundler) is loaded only when a worker is created,
 * so agents that import the package root just to ask never pay for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import {
  createActivities,
  webhookOptionsFromEnv,
  type WebhookActivityOptions,
} from '../activities/webhook-activities';
import type { QuestionPolicies } from '../types';
import { policyFromEnv } from '../workflows/question-policy';
import { loadTemporalSettings, taskQueueFromEnv } from './connection-config';

/** Options of `createAskUserWorker`. Everything not listed passes through to `Worker.create`. */
export interface AskUserWorkerOptions extends Omit<
  WorkerOptions,
  'connection' | 'taskQueue' | 'namespace' | 'activities' | 'workflowsPath'
> {
  /** A connection to use. Without one, the worker connects from `TEMPORAL_*` settings and owns it. */
  connection?: NativeConnection;
  /** Default `ASK_USER_TASK_QUEUE`, else `ask-user-question`. */
  taskQueue?: string;
  /** Default from `TEMPORAL_NAMESPACE` / the config profile, else `default`. */
  namespace?: string;
  /** Webhook settings. Default from `ASK_USER_WEBHOOK_URLS` and `ASK_USER_WEBHOOK_SECRET`. */
  webhooks?: WebhookActivityOptions;
  /**
   * Policies for the questions this worker runs, with overrides by agent id; a question's own policy (from
   * its provider) wins field by field. Default from `ASK_USER_POLICY` (JSON of the same form).
   */
  policy?: QuestionPolicies;
}

/** Path of the workflows module: `src/workflows` under tsx, `dist/workflows` once built. */
export const workflowsPath: string = require.resolve('../workflows');

/**
 * The workflow bundle that `npm run build` writes (`dist/workflow-bundle.js`), when this module runs from
 * `dist/` and the file is there. Under tsx (a source checkout) it is never used, so a bundle left over from an
 * older build cannot run in place of the current sources; the worker bundles `workflowsPath` at start instead.
 */
export function prebuiltWorkflowBundlePath(): string | undefined {
  if (path.extname(__filename) !== '.js') return undefined;
  const file = path.join(__dirname, '..', 'workflow-bundle.js');
  return fs.existsSync(file) ? file : undefined;
}

/**
 * Creates a worker ready to `run()`. When it opened its own connection, the connection closes once `run()`
 * settles.
 *
 * @example
 * const worker = await createAskUserWorker({ webhooks: { webhookUrls: ['https://ops.example/hooks'] } });
 * await worker.run(); // until worker.shutdown() or SIGINT/SIGTERM
 */
export async function createAskUserWorker(options: AskUserWorkerOptions = {}): Promise<Worker> {
  const { connection: givenConnection, taskQueue, namespace, webhooks, policy, ...workerOptions } = options;
  // Checked before connecting, so a mistake fails at once, naming the field.
  const activities = createActivities(
    webhooks ?? webhookOptionsFromEnv(),
    policy ?? policyFromEnv(process.env),
  );
  const { NativeConnection, Worker } = await import('@temporalio/worker');
  const settings =
    givenConnection === undefined || namespace === undefined ? loadTemporalSettings() : undefined;
  const connection = givenConnection ?? (await NativeConnection.connect(settings!.connectionOptions));
  const prebuilt = prebuiltWorkflowBundlePath();
  const workflowCode =
    workerOptions.workflowBundle !== undefined
      ? {}
      : prebuilt !== undefined
        ? { workflowBundle: { codePath: prebuilt } }
        : { workflowsPath };
  try {
    const worker = await Worker.create({
      ...workflowCode,
      ...workerOptions,
      connection,
      namespace: namespace ?? settings!.namespace,
      taskQueue: taskQueue ?? taskQueueFromEnv(),
      activities,
    });
    if (givenConnection === undefined) closeAfterRun(worker, connection);
    return worker;
  } catch (error) {
    if (givenConnection === undefined) await connection.close();
    throw error;
  }
}

// The worker does not own its connection in the SDK's model; when this factory opened it, tie its lifetime
// to the run so that callers cannot leak it.
function closeAfterRun(worker: Worker, connection: NativeConnection): void {
  const run = worker.run.bind(worker);
  worker.run = async () => {
    try {
      await run();
    } finally {
      await connection.close();
    }
  };
}
