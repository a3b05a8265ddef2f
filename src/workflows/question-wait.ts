/**
 * The wait of a pending question: one durable timer at a time for whatever its schedule says comes next
 * (deadline, reminder, escalation), woken early by an answer or a deadline change, and ended to continue as new
 * before the run nears one of the server's per-run limits.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { allHandlersFinished, condition, workflowInfo } from '@temporalio/workflow';
import type { QuestionState } from './question-state';
import type { QuestionTimerReason } from './question-schedule';
import { nowIso, type HandledCounts, type Notify, type QuestionRun } from './question-run';

/**
 * Where a question continues as new whatever the server suggests (a server from 1.20 suggests it at 4,096 events,
 * 4 MB or 1,800 updates), well below Temporal's per-run limits at their defaults:
 * - `events`, `bytes`: the history is terminated at 51,200 events or 50 MB. The bound is the worker's, though: a
 *   worker that lost the question from its cache replays the run within one workflow task (10 s by default)
 *   (see docs/design.md, "Long lives: continue-as-new");
 * - `updates`: a run takes at most 2,000 updates (`history.maxTotalUpdates`). Only accepted ones count: a
 *   validator's refusal is not written to history, and the server does not count it;
 * - `signals`: a run takes at most 10,000 signals (`history.maximumSignalsPerExecution`), after which the server
 *   refuses them to their sender.
 */
export const CONTINUE_AS_NEW_AT = { events: 5_000, bytes: 8 * 1024 * 1024, updates: 1_500, signals: 4_000 };

/**
 * Whether this run should hand the question to a new one: the server suggests it, or the run nears a limit the
 * server does not suggest for (see {@link CONTINUE_AS_NEW_AT}). Read in the wait's condition, so it is checked
 * after every message.
 */
function continueAsNewDue(handled: HandledCounts): boolean {
  const { continueAsNewSuggested, historyLength, historySize } = workflowInfo();
  return (
    continueAsNewSuggested ||
    historyLength >= CONTINUE_AS_NEW_AT.events ||
    historySize >= CONTINUE_AS_NEW_AT.bytes ||
    handled.updates >= CONTINUE_AS_NEW_AT.updates ||
    handled.signals >= CONTINUE_AS_NEW_AT.signals
  );
}

/** Runs what the timer woke the question for, in order, until an answer taken meanwhile ends the round. */
async function runDue(question: QuestionState, due: QuestionTimerReason[], notify: Notify): Promise<void> {
  for (const reason of due) {
    // An answer that came while the previous notification was being started ends the round.
    if (!question.isPending) return;
    const now = nowIso();
    if (reason === 'expire') question.expire(now);
    else if (reason === 'remind') await notify('question.reminder', { reminder: question.remind(now) });
    else await notify('question.escalated', { to: question.escalate(now) });
  }
}

/**
 * Ends the activation before the run continues as new. The SDK runs an activation's signals, then the
 * workflow's own code, then its updates, so an update delivered with this task would be accepted after the
 * snapshot, and the server would record it in this run while the next one never saw it. A local activity ends
 * the activation without a round trip to the server; once it resolves, every message delivered so far has been
 * handled. Returns whether the question is still pending: an answer taken meanwhile wins.
 */
async function readyToContinue(
  question: QuestionState,
  endActivation: () => Promise<unknown>,
): Promise<boolean> {
  await endActivation();
  await condition(allHandlersFinished);
  return question.isPending;
}

/**
 * Waits until the question is resolved and its handlers have finished, with one timer at a time for whatever
 * the question's state says comes next (deadline, reminder, escalation). A deadline change wakes the wait and
 * re-arms the timer. Returns `continue` instead when the run should continue as new: the question is still
 * pending and every handler has finished, so nothing taken is left out of the snapshot.
 *
 * @param endActivation a local activity whose result is not used (see `readyToContinue`)
 */
export async function waitUntilResolved(
  run: QuestionRun,
  notify: Notify,
  endActivation: () => Promise<unknown>,
): Promise<'resolved' | 'continue'> {
  const { question, handled } = run;
  while (question.isPending) {
    if (continueAsNewDue(handled)) {
      return (await readyToContinue(question, endActivation)) ? 'continue' : 'resolved';
    }
    const version = question.scheduleVersion;
    // Resolved, the wait ends once the handlers have finished too (an update has replied by then), so that the
    // close has nothing left to await.
    const woken = (): boolean =>
      (!question.isPending && allHandlersFinished()) ||
      question.scheduleVersion !== version ||
      continueAsNewDue(handled);
    const wake = question.nextWake();
    if (wake === undefined) {
      await condition(woken);
      continue;
    }
    // At least 1 ms: a deadline already past (the first task ran late, or the deadline was moved back) still
    // goes through a timer, so an expiry makes the same commands whenever it is found due.
    if (await condition(woken, Math.max(wake.at - Date.now(), 1))) continue;
    // The timer fired in the same task as an answer or a deadline change: those win.
    if (!question.isPending || question.scheduleVersion !== version) continue;
    await runDue(question, wake.due, notify);
  }
  return 'resolved';
}
