/**
 * `askUserQuestionWorkflow`: one durable question. It waits, for as long as it takes, for the first valid
 * answer (signal `answer` or update `submitAnswer`), a decline, an optional deadline, or cancellation; its
 * policy's reminders and escalation go out on durable timers while it waits, and `extendDeadline` moves the
 * deadline. Its state lives in Temporal's history, so restarts of the agent, the worker or the server lose
 * nothing. A question that would outgrow one run's history continues as new.
 *
 * Every change to this code, and to the modules it runs, must replay the saved histories
 * (`test/unit/replay.test.ts`); docs/design.md, "Changing the workflow", says how to version one that does not.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  setCurrentDetails,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { definedFields } from '../common';
import type { AskUserQuestionWorkflowInput, AskUserQuestionWorkflowResult } from '../types';
import type { QuestionMemo } from '../question/definitions';
import type { WorkerQuestionDefaults } from '../question/question-policy';
import { QuestionState } from './question-state';
import { continuationOf, type QuestionContinuation } from './question-snapshot';
import { setQuestionHandlers } from './question-handlers';
import { notifier, nowIso, type Notify, type QuestionRun } from './question-run';
import { waitUntilResolved } from './question-wait';
import { endActivation, workerDefaultsFetch } from './worker-defaults';
import { approvedByGrant, reportGrantNotUsed } from './grant-decision';

export { WORKER_DEFAULTS_MARKER } from './worker-defaults';
export type { QuestionContinuation } from './question-snapshot';

/**
 * One durable question or approval, started with its input alone; `continuation` is what a run that continued
 * as new hands the next one, and a start by hand that passes one is refused.
 */
export async function askUserQuestionWorkflow(
  input: AskUserQuestionWorkflowInput,
  continuation?: QuestionContinuation,
): Promise<AskUserQuestionWorkflowResult> {
  const run = questionRun(input, continuation);
  // Handlers are set before the first await so that no message delivered with the first task is dropped.
  setQuestionHandlers(run);
  setCurrentDetails(run.question.currentDetails);
  const notify = notifier(run);
  let cancellation: Error | undefined;
  let ending: 'resolved' | 'continue' = 'resolved';
  try {
    if (continuation === undefined) {
      // An approval a standing grant covers is decided as it starts when the policy in force, the worker's
      // included, lets one person decide (`grant-decision.ts`): nothing to open. Without a grant, or on a worker
      // without defaults, nothing is fetched here and no promise is made.
      const fetched = input.grant === undefined ? undefined : workerDefaultsFetch(input);
      const worker = fetched === undefined ? undefined : await fetched;
      // The grants workflow counted the use at the check; a grant this approval does not let decide takes it back.
      if (!approvedByGrant(input, run.question, worker?.policy, nowIso())) {
        if (input.grant !== undefined) await reportGrantNotUsed(input.grant);
        const opening = openQuestion(input, run, notify, worker);
        if (opening !== undefined) await opening;
      }
    }
    // An answer delivered with the question's first task has already been recorded by its handler: calling the
    // wait would cost two promises (its own and the await's) for a loop that does not run.
    if (run.question.isPending) ending = await waitUntilResolved(run, notify, () => endActivation(input));
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // Only a question still pending ends Canceled; an answer recorded in the same task stands.
    if (run.question.cancel(nowIso())) cancellation = error as Error;
  }
  if (ending === 'continue') {
    const next: QuestionContinuation = {
      state: run.question.snapshot(),
      targets: run.targets,
      posted: [...run.posted],
    };
    // The server carries the memo (and search attributes) over; the workflow id, task queue and input stay.
    return await continueAsNew<typeof askUserQuestionWorkflow>(input, next);
  }
  const closing = closeQuestion(run, notify);
  if (closing !== undefined) await closing;
  if (cancellation !== undefined) throw cancellation;
  return run.question.result(nowIso());
}

/** The run's state: a new question, or the one the previous run handed over (checked first). */
function questionRun(input: AskUserQuestionWorkflowInput, continuation: unknown): QuestionRun {
  const info = workflowInfo();
  if (continuation === undefined) {
    return {
      question: new QuestionState(input, info.startTime),
      handled: { updates: 0, signals: 0 },
      targets: [],
      posted: [],
    };
  }
  const resumed = continuationOf(continuation, info.continuedFromExecutionRunId !== undefined);
  return {
    question: QuestionState.resume(input, resumed.state),
    handled: { updates: 0, signals: 0 },
    // The pending notification went out in the first run, to these.
    targets: resumed.targets,
    posted: [...resumed.posted],
  };
}

/**
 * A new question's start: the worker's defaults beneath the question's own, the deadline and the worker's
 * audience into the memo, and the pending notification. Returns what is left to await, if anything: the SDK
 * records a stack trace for every promise a workflow creates (an async call and each `await` make one), which is
 * most of what a question costs its worker beyond a bare wait, so a question with no worker defaults to fetch
 * and no webhook makes none here.
 *
 * @param fetched the worker's defaults when the grant check already fetched them
 */
function openQuestion(
  input: AskUserQuestionWorkflowInput,
  run: QuestionRun,
  notify: Notify,
  fetched: WorkerQuestionDefaults | undefined,
): Promise<void> | undefined {
  if (fetched !== undefined) return applyWorkerDefaults(input, run, notify, fetched);
  const fetch = workerDefaultsFetch(input);
  if (fetch === undefined) return applyWorkerDefaults(input, run, notify, NO_WORKER_DEFAULTS);
  return fetch.then((worker) => applyWorkerDefaults(input, run, notify, worker));
}

/** What a worker without webhook URLs or a policy (or a question that takes none from it) brings. */
const NO_WORKER_DEFAULTS: WorkerQuestionDefaults = { webhookUrls: [] };

/** The part of {@link openQuestion} once the worker's defaults are known; the notification, when one goes out. */
function applyWorkerDefaults(
  input: AskUserQuestionWorkflowInput,
  run: QuestionRun,
  notify: Notify,
  worker: WorkerQuestionDefaults,
): Promise<void> | undefined {
  const { question } = run;
  run.targets = [...new Set([...(input.webhookUrls ?? []), ...worker.webhookUrls])];
  question.applyWorkerPolicy(worker.policy);
  const { expiresAt, audience } = question.record;
  // The asker's audience is in the memo from the start; the worker's is known only here.
  const startMemo: Partial<QuestionMemo> = definedFields({
    expiresAt,
    audience: worker.policy?.audience === undefined ? undefined : audience,
  });
  if (Object.keys(startMemo).length > 0) upsertMemo(startMemo);
  setCurrentDetails(question.currentDetails);
  // Only with somewhere to deliver (most questions have no webhook).
  if (run.targets.length === 0) return undefined;
  return notify(question.approval === undefined ? 'question.pending' : 'approval.pending');
}

/**
 * The close of a resolved (or cancelled) question: its memo, its details, the resolved notification, and the
 * reply of any update handler still running. Runs even when the workflow is being cancelled: the memo and the
 * details are commands, and a webhook's delivery is started in a non-cancellable scope. Returns what is left to
 * await, if anything (most questions: nothing, so no promise is made; see {@link openQuestion}).
 */
function closeQuestion(run: QuestionRun, notify: Notify): Promise<void> | undefined {
  const { question } = run;
  if (writesClosingMemo(question)) upsertMemo(closingMemo(question));
  setCurrentDetails(question.currentDetails);
  if (run.targets.length > 0) {
    return CancellationScope.nonCancellable(async () => {
      await notify(question.approval === undefined ? 'question.resolved' : 'approval.decided');
      // Let an update handler that is still running finish and reply before the workflow closes.
      await condition(allHandlersFinished);
    });
  }
  return allHandlersFinished() ? undefined : handlersFinished();
}

/**
 * The reply of an update handler still running at the close, most often to an answer delivered with the
 * question's first task, before the wait began (an answer sent as soon as the question started): it finishes
 * within this task. So the wait runs in the current scope, which costs the worker two promises where a scope of
 * its own costs several; only a cancellation during the wait, or one already requested, moves it to a
 * non-cancellable scope.
 */
async function handlersFinished(): Promise<void> {
  try {
    await condition(allHandlersFinished);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  }
}

/**
 * Whether the question records how it ended in its memo. An answered question does not: Completed with the start
 * memo's `pending` reads as answered, and its close time as when, so it costs what a bare signal wait costs (one
 * history event and one visibility write less). Nor does an approval decided `approve` (lists read Completed
 * with no decision in the memo as approved); any other decision is written, so that lists show it.
 */
function writesClosingMemo(question: QuestionState): boolean {
  const { status, decision } = question.record;
  return status !== 'answered' || (question.approval !== undefined && decision?.type !== 'approve');
}

function closingMemo(question: QuestionState): Partial<QuestionMemo> {
  const { status, resolvedAt, decision } = question.record;
  return definedFields({ status, resolvedAt, decision: decision?.type });
}
