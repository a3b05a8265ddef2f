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
  hasQuestionDefaults,
  webhookOptionsFromEnv,
  type WebhookActivityOptions,
} from '../activities/webhook-activities';
import type { QuestionPolicies } from '../types';
import { policyFromEnv } from '../question/question-policy';
import { grantPolicyFromEnv, resolveGrantPolicy, type GrantPolicy } from '../question/grant-policy';
import { createGrantActivities } from '../activities/grant-activities';
import { loadTemporalSettings, taskQueueFromEnv } from '../connection/connection-config';

/**
 * Options of `createAskUserWorker`. Everything not listed passes through to `Worker.create`, including
 * `maxCachedWorkflows` (default {@link DEFAULT_MAX_CACHED_WORKFLOWS}) and `dataConverter` (by default the
 * payload converter at {@link payloadConverterPath}; one of your own replaces it, and should likewise never throw
 * on a payload it cannot decode, or one malformed signal jams a question). A `workflowBundle` of your own is run
 * as given: bundle {@link workflowsWithWorkerDefaultsPath} for a worker with webhook URLs or a policy, else
 * {@link workflowsPath}; a bundle of the latter never hands questions the worker's URLs or policy.
 */
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
  /**
   * Webhook and Slack bot settings. Default from `ASK_USER_WEBHOOK_URLS`, `ASK_USER_WEBHOOK_SECRET`,
   * `ASK_USER_INBOX_URL` and the bot's `ASK_USER_SLACK_BOT_TOKEN`, `ASK_USER_SLACK_CHANNEL`, `ASK_USER_SLACK_API_URL`.
   */
  webhooks?: WebhookActivityOptions;
  /**
   * Policies for the questions this worker runs, with overrides by agent id; a question's own policy (from
   * its provider) wins field by field. Default from `ASK_USER_POLICY` (JSON of the same form).
   */
  policy?: QuestionPolicies;
  /**
   * The operator's grant policy: the longest a standing grant may last (`maxExpireAfter`, default 30d) and the
   * tools no grant may cover (`forbidTools`, `"*"` for all). Default from `ASK_USER_GRANT_POLICY` (JSON).
   */
  grants?: GrantPolicy;
}

/**
 * Path of the workflows module of a worker with no question defaults (no webhook URLs, no policy):
 * `src/workflows` under tsx, `dist/workflows` once built.
 */
export const workflowsPath: string = require.resolve('../workflows');

/**
 * Path of the workflows module of a worker with question defaults: the same workflows, whose questions fetch
 * the worker's webhook URLs and policy as they start (see `src/workflows/worker-settings.ts`). A worker that
 * bundles on its own and registers the webhook activities with settings must bundle this one.
 */
export const workflowsWithWorkerDefaultsPath: string = require.resolve('../workflows/with-worker-defaults');

/**
 * Path of the worker's payload converter: the default one, except that a payload it cannot decode reaches the
 * workflow as an `UndecodablePayload` (refused as an answer) instead of failing every workflow task.
 */
export const payloadConverterPath: string = require.resolve('../question/payload-converter');

/**
 * The worker's default `maxCachedWorkflows`: how many questions stay in memory between their workflow tasks.
 *
 * The SDK's own default grows with the heap limit, and every cached question holds its workflow's state, so a
 * worker holding thousands of pending questions would spend hundreds of megabytes doing nothing. A pending question
 * sees a task only when it is asked, answered, declined, queried or expires; one evicted from the cache is
 * rebuilt by replaying its short history (under ten events) when its next task arrives, which costs the worker
 * one history fetch and well under a millisecond of replay.
 *
 * What this saves, measured, is in docs/design.md ("Worker memory"). Pass `maxCachedWorkflows` to trade memory
 * for fewer replays.
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 100;

/**
 * The workflow bundle that `npm run build` writes, when this module runs from `dist/` and the file is there:
 * `dist/worker/workflow-bundle.js` of {@link workflowsPath}, or with `workerDefaults`
 * `dist/worker/workflow-bundle-worker-defaults.js` of {@link workflowsWithWorkerDefaultsPath}. Under tsx (a source
 * checkout) it is never used, so a bundle left over from an older build cannot run in place of the current
 * sources; the worker bundles the entry at start instead.
 */
export function prebuiltWorkflowBundlePath(workerDefaults = false): string | undefined {
  if (path.extname(__filename) !== '.js') return undefined;
  const name = workerDefaults ? 'workflow-bundle-worker-defaults.js' : 'workflow-bundle.js';
  const file = path.join(__dirname, name);
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
  const {
    connection: givenConnection,
    taskQueue,
    namespace,
    webhooks,
    policy,
    grants,
    ...workerOptions
  } = options;
  // Checked before connecting, so a mistake fails at once, naming the field.
  const webhookOptions = webhooks ?? webhookOptionsFromEnv();
  const workerPolicy = policy ?? policyFromEnv(process.env);
  const grantPolicy =
    grants === undefined
      ? grantPolicyFromEnv(process.env)
      : resolveGrantPolicy(grants, 'createAskUserWorker option grants');
  const activities = {
    ...createActivities(webhookOptions, workerPolicy),
    ...createGrantActivities(grantPolicy),
  };
  const workerDefaults = hasQuestionDefaults(webhookOptions, workerPolicy);
  const { NativeConnection, Worker } = await import('@temporalio/worker');
  const settings =
    givenConnection === undefined || namespace === undefined ? loadTemporalSettings() : undefined;
  const connection = givenConnection ?? (await NativeConnection.connect(settings!.connectionOptions));
  const dataConverter = { payloadConverterPath, ...workerOptions.dataConverter };
  // The prebuilt bundle has this package's payload converter and no workflow interceptors compiled in: options
  // that change what goes into a bundle need the bundler.
  const needsBundler =
    dataConverter.payloadConverterPath !== payloadConverterPath ||
    dataConverter.failureConverterPath !== undefined ||
    (workerOptions.interceptors?.workflowModules?.length ?? 0) > 0 ||
    workerOptions.bundlerOptions !== undefined;
  const prebuilt = needsBundler ? undefined : prebuiltWorkflowBundlePath(workerDefaults);
  const workflowCode =
    workerOptions.workflowBundle !== undefined
      ? {}
      : prebuilt !== undefined
        ? { workflowBundle: { codePath: prebuilt } }
        : { workflowsPath: workerDefaults ? workflowsWithWorkerDefaultsPath : workflowsPath };
  try {
    const worker = await Worker.create({
      ...workflowCode,
      maxCachedWorkflows: DEFAULT_MAX_CACHED_WORKFLOWS,
      ...workerOptions,
      dataConverter,
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
