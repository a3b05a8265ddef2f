/**
 * What a question takes from the worker it starts on: the worker's webhook URLs and its policy for the asking
 * agent, read by the `webhookTargets` local activity so that both are in the question's history.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { patched, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { AskUserQuestionWorkflowInput } from '../types';
import type { createActivities } from '../activities/webhook-activities';
import type { WorkerQuestionDefaults } from '../question/question-policy';
import { noEarlierTaskCompleted } from './task-history';
import { workerHasDefaults } from './worker-settings';

const { webhookTargets } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
});

/**
 * Marker a question records when it fetched its worker's defaults, so that every later replay, on any worker,
 * makes the same choice.
 */
export const WORKER_DEFAULTS_MARKER = 'ask-user/worker-defaults';

/**
 * Whether the question runs the `webhookTargets` local activity as it starts:
 * - `workerDefaults: false`: never (the asker wants nothing from the worker);
 * - otherwise only on a worker that has webhook URLs or a policy. A worker that fetches records a patch marker
 *   with the local activity's result, and a replay reads the marker, whatever the replaying worker's own
 *   settings: a question moves between workers with different settings without a determinism error. A worker
 *   without defaults records nothing, and its choice stands: a worker with defaults that runs the question after
 *   a completed task, even one that recorded nothing, takes none, as any replay of that history would
 *   (test/integration/webhooks.test.ts shows the three cases, and replays them).
 */
function fetchesWorkerDefaults(input: AskUserQuestionWorkflowInput): boolean {
  if (input.workerDefaults === false) return false;
  if (workflowInfo().unsafe.isReplaying) return patched(WORKER_DEFAULTS_MARKER);
  return workerHasDefaults() && noEarlierTaskCompleted() && patched(WORKER_DEFAULTS_MARKER);
}

/**
 * The fetch of the worker's defaults for this question, started, when {@link fetchesWorkerDefaults} says so;
 * `undefined`, with no promise made, when the worker has none, so a question on such a worker costs nothing more.
 */
export function workerDefaultsFetch(
  input: AskUserQuestionWorkflowInput,
): Promise<WorkerQuestionDefaults> | undefined {
  return fetchesWorkerDefaults(input) ? webhookTargets(input.agent?.id) : undefined;
}

/**
 * Reads the worker's settings again, for a question about to continue as new: the read ends the activation
 * without a round trip to the server (see `waitUntilResolved`), and its result is not used.
 */
export function endActivation(input: AskUserQuestionWorkflowInput): Promise<unknown> {
  return webhookTargets(input.agent?.id);
}
