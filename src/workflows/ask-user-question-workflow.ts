/**
 * `askUserQuestionWorkflow`: one durable question. It waits, for as long as it takes, for the first valid
 * answer (signal `answer` or update `submitAnswer`), a decline, an optional deadline, or cancellation; its
 * policy's reminders and escalation go out on durable timers while it waits, and `extendDeadline` moves the
 * deadline. Its state lives in Temporal's history, so restarts of the agent, the worker or the server lose
 * nothing.
 *
 * Compatibility with histories recorded before policies existed (replayed by `test/replay.test.ts`): no
 * `patched()` marker is needed. A question whose input has no `policy` and whose worker handed it none (the
 * only kind those histories hold) makes exactly the commands it made before: at most one deadline timer,
 * armed at the first wait (its duration is not part of Temporal's determinism check, only its position), and
 * no memo change at start. Everything new (the start memo's deadline, reminder and escalation timers and
 * their deliveries) happens only for inputs with `policy` or a worker policy, which old histories cannot
 * have; an `extendDeadline` adds commands only after its own update event.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import {
  currentUpdateInfo,
  allHandlersFinished,
  CancellationScope,
  ParentClosePolicy,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertMemo,
  workflowInfo,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { AskUserQuestionWorkflowInput, AskUserQuestionWorkflowResult } from '../types';
import type { createActivities } from '../activities/webhook-activities';
import {
  answerSignal,
  decideUpdate,
  declineUpdate,
  extendDeadlineUpdate,
  getQuestionQuery,
  notificationPostedSignal,
  submitAnswerUpdate,
  type QuestionMemo,
} from '../question/definitions';
import { workerDefaultsOf, type WorkerQuestionDefaults } from '../question/question-policy';
import { QuestionState, type QuestionSnapshot } from './question-state';
import { INVALID_ARGS, refusal } from '../question/failures';
import type { NotificationPosted, WebhookEvent } from '../question/webhook-event';
import { webhookDeliveryWorkflow } from './webhook-delivery-workflow';
import { noEarlierTaskCompleted } from './task-history';
import { workerHasDefaults } from './worker-settings';

const { webhookTargets } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
});

function nowIso(): string {
  // Date.now() is deterministic in workflows: it is the time of the current workflow task.
  return new Date(Date.now()).toISOString();
}

/**
 * What a question's run hands the next one when it continues as new: the question's state, and what the
 * workflow itself keeps, so that the next run fetches nothing again and notifies nobody twice.
 */
export interface QuestionContinuation {
  state: QuestionSnapshot;
  /** The webhook URLs the first run settled on (the question's and its worker's); the worker is not asked again. */
  targets: string[];
  /** The chat messages posted for the question so far: later notifications still reach them. */
  posted: NotificationPosted[];
}

/**
 * Where a question continues as new whatever the server suggests (a server from 1.20 suggests it at 4,096 events,
 * 4 MB or 1,800 updates), well below Temporal's per-run limits at their defaults:
 * - `events`, `bytes`: the history is terminated at 51,200 events or 50 MB. The bound is the worker's, though: a
 *   worker that lost the question from its cache replays the run within one workflow task (10 s by default), and
 *   a task over a run of some 4,100 events (refused signals) took 6 s on two busy cores;
 * - `updates`: a run takes at most 2,000 updates (`history.maxTotalUpdates`). Only accepted ones count: a
 *   validator's refusal is not written to history, and the server does not count it (60 refused updates went to
 *   a run limited to 40);
 * - `signals`: a run takes at most 10,000 signals (`history.maximumSignalsPerExecution`), after which the server
 *   refuses them to their sender.
 */
export const CONTINUE_AS_NEW_AT = { events: 5_000, bytes: 8 * 1024 * 1024, updates: 1_500, signals: 4_000 };

/** Marker a question records in the task where it continues as new (see the header comment). */
export const CONTINUE_AS_NEW_MARKER = 'ask-user/continue-as-new';

/** Messages this run's handlers have taken: what counts toward the server's per-run limits beside its history. */
interface HandledCounts {
  updates: number;
  signals: number;
}

export async function askUserQuestionWorkflow(
  input: AskUserQuestionWorkflowInput,
  continuation?: QuestionContinuation,
): Promise<AskUserQuestionWorkflowResult> {
  const info = workflowInfo();
  const resumed = continuation === undefined ? undefined : continuationOf(continuation);
  const question =
    resumed === undefined
      ? new QuestionState(input, info.startTime)
      : QuestionState.resume(input, resumed.state);
  const handled: HandledCounts = { updates: 0, signals: 0 };

  // Handlers are set before the first await so that no message delivered with the first task is dropped.
  setHandler(getQuestionQuery, () => question.record);
  setHandler(answerSignal, (answer: unknown) => {
    handled.signals += 1;
    question.receiveSignal(answer, nowIso());
  });
  // The validator and the handler of one update run one after the other; the id lets the handler reuse the
  // validator's check of the answer instead of running the answer rules twice (on replay only the handler runs).
  // A handler runs only for an update its validator accepted: those are the ones the server counts.
  setHandler(
    submitAnswerUpdate,
    (answer: unknown) => {
      handled.updates += 1;
      return question.submit(answer, nowIso(), currentUpdateInfo()?.id);
    },
    {
      validator: (answer: unknown) => {
        question.checkSubmit(answer, currentUpdateInfo()?.id);
      },
    },
  );
  setHandler(
    decideUpdate,
    (decision: unknown) => {
      handled.updates += 1;
      return question.decide(decision, nowIso(), currentUpdateInfo()?.id);
    },
    {
      validator: (decision: unknown) => {
        question.checkDecide(decision, currentUpdateInfo()?.id);
      },
    },
  );
  setHandler(
    declineUpdate,
    (decline: unknown) => {
      handled.updates += 1;
      return question.decline(decline, nowIso());
    },
    {
      validator: (decline: unknown) => {
        question.checkDecline(decline);
      },
    },
  );

  setHandler(
    extendDeadlineUpdate,
    (change: unknown) => {
      handled.updates += 1;
      const outcome = question.extend(change, nowIso());
      const { expiresAt } = question.record;
      if (expiresAt !== undefined) upsertMemo({ expiresAt } satisfies Partial<QuestionMemo>);
      setCurrentDetails(question.currentDetails);
      return outcome;
    },
    {
      validator: (change: unknown) => {
        question.checkExtend(change, nowIso());
      },
    },
  );

  // Chat messages posted for this question, reported by their deliveries: later notifications find them here.
  const posted: NotificationPosted[] = resumed === undefined ? [] : [...resumed.posted];
  setHandler(notificationPostedSignal, (report: unknown) => {
    handled.signals += 1;
    const checked = notificationPostedOf(report);
    if (checked === undefined || posted.length >= MAX_POSTED) return;
    if (!posted.some((entry) => entry.target === checked.target && entry.ts === checked.ts))
      posted.push(checked);
  });

  setCurrentDetails(question.currentDetails);
  let targets: string[] = [];

  const notify: Notify = async (event, options = {}) => {
    const to = options.to ?? targets;
    if (to.length === 0) return;
    const payload: WebhookEvent = {
      event,
      workflowId: info.workflowId,
      runId: info.runId,
      record: question.record,
      occurredAt: nowIso(),
    };
    if (options.reminder !== undefined) payload.reminder = options.reminder;
    if (posted.length > 0) payload.posted = [...posted];
    const suffix = options.reminder === undefined ? '' : `/${options.reminder}`;
    // A child that outlives this workflow: a dead webhook retries on its own schedule and never delays or
    // fails the question.
    try {
      // Started outside the cancellable root scope: cancelling the question must not cancel a delivery.
      await CancellationScope.nonCancellable(() =>
        startChild(webhookDeliveryWorkflow, {
          workflowId: `${info.workflowId}/webhook/${event}${suffix}`,
          args: [{ targets: to, payload }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
        }),
      );
    } catch (error) {
      // Notifications are a courtesy: the question goes on without them.
      log.warn('could not start webhook delivery', { event, error: String(error) });
    }
  };

  let cancellation: Error | undefined;
  let ending: 'resolved' | 'continue' = 'resolved';
  try {
    if (resumed === undefined) {
      const worker: WorkerQuestionDefaults = fetchesWorkerDefaults(input)
        ? workerDefaultsOf(await webhookTargets(input.agent?.id))
        : { webhookUrls: [] };
      targets = [...new Set([...(input.webhookUrls ?? []), ...worker.webhookUrls])];
      question.applyWorkerPolicy(worker.policy);
      const { expiresAt, audience } = question.record;
      const startMemo: Partial<QuestionMemo> = {};
      // Gated on what histories recorded before policies cannot hold (see the header comment).
      if ((input.policy !== undefined || worker.policy !== undefined) && expiresAt !== undefined) {
        startMemo.expiresAt = expiresAt;
      }
      // The worker's audience is known only here; one the asker set is in the memo from the start. No history
      // recorded before audiences has either, so they replay with the same commands.
      if (worker.policy?.audience !== undefined && audience !== undefined) startMemo.audience = audience;
      if (Object.keys(startMemo).length > 0) upsertMemo(startMemo);
      setCurrentDetails(question.currentDetails);
      // Awaited only with somewhere to deliver (most questions have no webhook): the SDK records a stack trace
      // for every promise a workflow creates, which is most of what a question costs its worker beyond a bare
      // wait.
      if (targets.length > 0)
        await notify(question.approval === undefined ? 'question.pending' : 'approval.pending');
    } else {
      // A continued run: the server carried the memo over, and the pending notification went out long ago.
      targets = resumed.targets;
    }
    // An answer delivered with the question's first task has already been recorded by its handler: calling the
    // wait would cost two promises (its own and the await's) for a loop that does not run.
    // The worker's settings are read again only to end an activation before continuing as new (see
    // `waitUntilResolved`): the read changes nothing, and its result is not used.
    if (question.isPending)
      ending = await waitUntilResolved(
        question,
        notify,
        () => continueAsNewDue(handled),
        () => webhookTargets(input.agent?.id),
      );
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // Only a question still pending ends Canceled; an answer recorded in the same task stands.
    if (question.cancel(nowIso())) cancellation = error as Error;
  }

  if (ending === 'continue') {
    const next: QuestionContinuation = { state: question.snapshot(), targets, posted: [...posted] };
    // The server carries the memo (and search attributes) over; the workflow id, task queue and input stay.
    return await continueAsNew<typeof askUserQuestionWorkflow>(input, next);
  }

  // Cleanup runs even when the workflow is being cancelled: the memo and the details are commands, and a webhook's
  // delivery is started in a non-cancellable scope.
  if (writesClosingMemo(input, question)) upsertMemo(memoUpdate(question));
  setCurrentDetails(question.currentDetails);
  if (targets.length > 0) {
    await CancellationScope.nonCancellable(async () => {
      await notify(question.approval === undefined ? 'question.resolved' : 'approval.decided');
      // Let an update handler that is still running finish and reply before the workflow closes.
      await condition(allHandlersFinished);
    });
  } else if (!allHandlersFinished()) {
    // A handler still running here is most often the reply to an answer delivered with the question's first task,
    // before the wait began (an answer sent as soon as the question started): it finishes within this task. So
    // the wait runs in the current scope, which costs the worker two promises where a scope of its own costs
    // several; only a cancellation during the wait, or one already requested, moves it to a non-cancellable scope.
    try {
      await condition(allHandlersFinished);
    } catch (error) {
      if (!isCancellation(error)) throw error;
      await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    }
  }
  if (cancellation !== undefined) throw cancellation;
  return question.result(nowIso());
}

/** Chat messages one question keeps (one per chat target, in practice): bounds its state. */
const MAX_POSTED = 20;

/** A `notificationPosted` report with three short strings, or `undefined`: anything else is ignored. */
function notificationPostedOf(report: unknown): NotificationPosted | undefined {
  if (typeof report !== 'object' || report === null) return undefined;
  const { target, channel, ts } = report as Record<string, unknown>;
  const short = (value: unknown): value is string =>
    typeof value === 'string' && value !== '' && value.length <= 3000;
  return short(target) && short(channel) && short(ts) ? { target, channel, ts } : undefined;
}

/**
 * Marker a question records when it fetched its worker's defaults under `workerDefaults: 'if-configured'`, so
 * that every later replay, on any worker, makes the same choice.
 */
export const WORKER_DEFAULTS_MARKER = 'ask-user/worker-defaults';

/**
 * Whether the question runs the `webhookTargets` local activity at start:
 * - `workerDefaults: false`: never (the asker wants nothing from the worker);
 * - absent, the input of an earlier provider (every history recorded before `'if-configured'`): always;
 * - `'if-configured'`: only on a worker that has webhook URLs or a policy. A worker that fetches records a patch
 *   marker with the local activity's result, and a replay reads the marker, whatever the replaying worker's
 *   own settings: a question moves between workers with different settings without a determinism error. A
 *   worker without defaults records nothing, and its choice stands: a worker with defaults that runs the
 *   question after a completed task, even one that recorded nothing, takes none, as any replay of that history
 *   would (test/webhooks.test.ts shows the three cases, and replays them).
 */
function fetchesWorkerDefaults(input: AskUserQuestionWorkflowInput): boolean {
  if (input.workerDefaults === false) return false;
  if (input.workerDefaults === undefined) return true;
  if (workflowInfo().unsafe.isReplaying) return patched(WORKER_DEFAULTS_MARKER);
  return workerHasDefaults() && noEarlierTaskCompleted() && patched(WORKER_DEFAULTS_MARKER);
}

/** Starts a notification's delivery: to the question's webhooks, or to `to`. */
type Notify = (event: WebhookEvent['event'], options?: { to?: string[]; reminder?: number }) => Promise<void>;

/**
 * Whether this run should hand the question to a new one: the server suggests it, or the run nears a limit the
 * server does not suggest for (see {@link CONTINUE_AS_NEW_AT}). True only with the patch marker, which a new task
 * records and a history from before continue-as-new existed never holds: its replay goes on as it went.
 *
 * Read in the wait's condition, so it is checked after every message; the patch is asked only once a limit is
 * near, so a question that never nears one records no marker and costs what it always cost.
 */
function continueAsNewDue(handled: HandledCounts): boolean {
  const { continueAsNewSuggested, historyLength, historySize } = workflowInfo();
  const near =
    continueAsNewSuggested ||
    historyLength >= CONTINUE_AS_NEW_AT.events ||
    historySize >= CONTINUE_AS_NEW_AT.bytes ||
    handled.updates >= CONTINUE_AS_NEW_AT.updates ||
    handled.signals >= CONTINUE_AS_NEW_AT.signals;
  return near && patched(CONTINUE_AS_NEW_MARKER);
}

/**
 * The second argument of a continued run, checked: its state by `QuestionState.resume`, the rest here. Only a
 * run that continues another one takes it, so a start by hand cannot pass a question off as half answered.
 */
function continuationOf(value: unknown): QuestionContinuation {
  if (workflowInfo().continuedFromExecutionRunId === undefined) {
    throw refusal(
      INVALID_ARGS,
      'invalid arguments: continuation: only a question continuing as new passes one; start a question with its input alone',
    );
  }
  if (typeof value !== 'object' || value === null) {
    throw refusal(INVALID_ARGS, 'invalid arguments: continuation: must be an object');
  }
  const { state, targets, posted } = value as Record<string, unknown>;
  if (!Array.isArray(targets) || !targets.every((url) => typeof url === 'string')) {
    throw refusal(INVALID_ARGS, 'invalid arguments: continuation.targets: must be a list of URLs');
  }
  if (!Array.isArray(posted) || posted.length > MAX_POSTED) {
    throw refusal(
      INVALID_ARGS,
      `invalid arguments: continuation.posted: must be a list of at most ${MAX_POSTED}`,
    );
  }
  const receipts = posted.map(notificationPostedOf);
  if (receipts.some((receipt) => receipt === undefined)) {
    throw refusal(
      INVALID_ARGS,
      'invalid arguments: continuation.posted: each must be { target, channel, ts }',
    );
  }
  return { state: state as QuestionSnapshot, targets, posted: receipts as NotificationPosted[] };
}

/**
 * Waits until the question is resolved and its handlers have finished, with one timer at a time for whatever
 * the question's state says comes next (deadline, reminder, escalation). A deadline change wakes the wait and
 * re-arms the timer. Returns `continue` instead when the run should continue as new: the question is still
 * pending and every handler has finished, so nothing taken is left out of the snapshot.
 */
async function waitUntilResolved(
  question: QuestionState,
  notify: Notify,
  continueDue: () => boolean,
  endActivation: () => Promise<unknown>,
): Promise<'resolved' | 'continue'> {
  while (question.isPending) {
    if (continueDue()) {
      // Not in this activation: the SDK runs an activation's signals, then the workflow's own code, then its
      // updates, so an update delivered with this task would be accepted after the snapshot, and the server
      // would record it in this run while the next one never saw it. A local activity ends the activation
      // without a round trip to the server; once it resolves, every message delivered so far has been handled.
      await endActivation();
      await condition(allHandlersFinished);
      // An answer taken meanwhile wins: the question closes here as it would have.
      if (question.isPending) return 'continue';
      break;
    }
    const version = question.scheduleVersion;
    // Resolved, the wait ends once the handlers have finished too (an update has replied by then), so that the
    // close has nothing left to await (see there).
    const woken = (): boolean =>
      (!question.isPending && allHandlersFinished()) || question.scheduleVersion !== version || continueDue();
    const wake = question.nextWake();
    if (wake === undefined) {
      await condition(woken);
      continue;
    }
    // At least 1 ms: a timer is always started, even for a deadline already past (the first task ran late, or
    // the deadline was moved back), so such a question makes the same commands as before policies existed.
    if (await condition(woken, Math.max(wake.at - Date.now(), 1))) continue;
    // The timer fired in the same task as an answer or a deadline change: those win.
    if (!question.isPending || question.scheduleVersion !== version) continue;
    for (const reason of wake.due) {
      // An answer that came while the previous notification was being started ends the round.
      if (!question.isPending) break;
      const now = nowIso();
      if (reason === 'expire') question.expire(now);
      else if (reason === 'remind') await notify('question.reminder', { reminder: question.remind(now) });
      else await notify('question.escalated', { to: question.escalate(now) });
    }
  }
  return 'resolved';
}

/**
 * Whether the question records how it ended in its memo. An answered question of a current provider does not:
 * Completed with the start memo's `pending` reads as answered, and its close time as when (see `closingMemo`).
 * Inputs without `closingMemo` (every history recorded before it) always do, so they replay unchanged. An
 * approval decided `approve` does not either (lists read Completed with no decision in the memo as approved);
 * any other decision is written, so that lists show it. The memo costs more than its command: the update's
 * workflow task, speculative otherwise, is then written to history (4 events instead of 1 for the close).
 */
function writesClosingMemo(input: AskUserQuestionWorkflowInput, question: QuestionState): boolean {
  const { status, decision } = question.record;
  return (
    input.closingMemo !== 'unless-answered' ||
    status !== 'answered' ||
    (question.approval !== undefined && decision?.type !== 'approve')
  );
}

function memoUpdate(question: QuestionState): Partial<QuestionMemo> {
  const { status, resolvedAt, decision } = question.record;
  const memo: Partial<QuestionMemo> = { status };
  if (resolvedAt !== undefined) memo.resolvedAt = resolvedAt;
  if (decision !== undefined) memo.decision = decision.type;
  return memo;
}
