/**
 * Whether the worker running these workflows has question defaults of its own: webhook URLs or a policy that
 * `createAskUserWorker` hands every question through the `webhookTargets` local activity. A worker without any
 * runs the plain entry (`index.ts`), so its questions skip that activity: one workflow activation and one
 * history event less per question, what separates a question from a bare signal wait. A worker with some runs
 * `with-worker-defaults.ts`, which sets the flag once as its bundle loads.
 *
 * The flag alone is not deterministic (two workers may differ, and a worker may be restarted with new settings),
 * so a question records what it decided: see `fetchesWorkerDefaults` in `worker-defaults.ts`.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */

let hasWorkerDefaults = false;

/** Called once by the entry of a worker with question defaults, before any workflow runs. */
export function markWorkerDefaults(): void {
  hasWorkerDefaults = true;
}

/** Whether this worker hands its questions webhook URLs or a policy. */
export function workerHasDefaults(): boolean {
  return hasWorkerDefaults;
}
