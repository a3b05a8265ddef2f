/**
 * What the current workflow task can tell about the tasks of the run before it, for choices a question records
 * only when it makes them on its first task (see `fetchesWorkerDefaults` in `worker-defaults.ts`).
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { workflowInfo } from '@temporalio/workflow';

/**
 * The shortest history whose current task follows a completed one: started, task scheduled, started, completed,
 * then the current task scheduled and started. A first task that a signal or a failed attempt delayed can be as
 * long, so length alone only rules a completed task out.
 */
const SHORTEST_HISTORY_AFTER_A_COMPLETED_TASK = 6;

/** The global the SDK keeps the workflow's activator in (see `noEarlierTaskCompleted`). */
export const ACTIVATOR_GLOBAL = '__TEMPORAL_ACTIVATOR__';

/**
 * Whether no workflow task of this run completed before the current one.
 *
 * Why it matters: a task that completed without commands leaves nothing to replay, and the SDK runs the task
 * after it as new (not replaying) in the same activation; a later replay then runs the workflow's start as its
 * own, replayed, task. A choice taken as new in such a task would not be taken again on replay.
 *
 * The workflow API does not expose it, so this reads the SDK version of the last completed task, which the
 * worker hands the workflow runtime with each activation (`lastSdkVersion`): empty until a task completes. A
 * first task retried after a failure or a timeout has none either, unlike a length check. If a future SDK no
 * longer keeps that field, a long history counts as not first: a choice is skipped, never made twice.
 *
 * No public workflow API tells it. The activator is the SDK's per-workflow state, kept on a global of the
 * sandbox (what `@temporalio/workflow`'s own internal `maybeGetActivator` reads); `lastSdkVersion` reaches it
 * since temporalio/sdk-rust#1040, part of temporalio/sdk-typescript#1677. Read here by name rather than by an
 * import of the SDK's `lib/` path; `test/unit/sdk-workarounds.test.ts` fails loudly if an SDK release moves it.
 */
export function noEarlierTaskCompleted(): boolean {
  if (workflowInfo().historyLength < SHORTEST_HISTORY_AFTER_A_COMPLETED_TASK) return true;
  const activator: unknown = (globalThis as { [ACTIVATOR_GLOBAL]?: unknown })[ACTIVATOR_GLOBAL];
  if (typeof activator !== 'object' || activator === null || !('sdkVersion' in activator)) return false;
  return !activator.sdkVersion;
}
