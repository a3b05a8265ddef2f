/**
 * The handlers of a question's messages: the `getQuestion` query, the `answer` and `notificationPosted` signals,
 * and the `submitAnswer`, `decide`, `decline` and `extendDeadline` updates, each wired to the question's state.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import type { UpdateDefinition } from '@temporalio/common';
import { currentUpdateInfo, patched, setCurrentDetails, setHandler, upsertMemo } from '@temporalio/workflow';
import type { QuestionOutcome, RejectedAnswer } from '../types';
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
import { MAX_POSTED, notificationPostedOf } from './question-snapshot';
import { notifier, nowIso, type QuestionRun } from './question-run';

/** The patch that added the webhook of an answer refused after its sender was told it waits for a worker. */
export const ANSWER_REFUSED_PATCH = 'answer-refused-webhook';

/**
 * Tells the question's webhooks of a refused answer that carried an `answerId`: one recorded while no worker ran,
 * whose sender was told it waits for a worker to validate it, so the refusal must reach them. A run that began
 * before this code (no patch marker in its history) sends nothing, as it did.
 */
function announceRefusal(run: QuestionRun, refusal: RejectedAnswer): void {
  if (refusal.answerId === undefined || run.targets.length === 0) return;
  if (!patched(ANSWER_REFUSED_PATCH)) return;
  void notifier(run)('question.answer_refused', { key: refusal.answerId });
}

/**
 * Tells the approval's webhooks of a decision counted toward the two-person rule while the call still waits
 * (`approval.progress`, keyed by the count so far): its chat message then shows "1 of 2 approvals". Only a call
 * whose policy requires more than one approval or rejection gets here, and no history from before the rule
 * holds one, so no marker is needed for replay.
 */
function announceProgress(run: QuestionRun): void {
  const { isPending, record } = run.question;
  const counted = (record.approvals?.length ?? 0) + (record.rejections?.length ?? 0);
  if (!isPending || counted === 0 || run.targets.length === 0) return;
  void notifier(run)('approval.progress', { key: String(counted) });
}

/**
 * Sets an update's validator and handler. `check` is the validator; `apply` records the change, and is given
 * the update's id so that it can reuse its validator's check (on replay only the handler runs). A handler runs
 * only for an update its validator accepted: those are the ones the server counts toward the run's limit.
 */
function setCheckedUpdate<Argument>(
  run: QuestionRun,
  update: UpdateDefinition<QuestionOutcome, [Argument]>,
  check: (argument: unknown, updateId: string | undefined) => void,
  apply: (argument: unknown, updateId: string | undefined) => QuestionOutcome,
): void {
  setHandler(
    update,
    (argument: unknown) => {
      run.handled.updates += 1;
      return apply(argument, currentUpdateInfo()?.id);
    },
    { validator: (argument: unknown) => void check(argument, currentUpdateInfo()?.id) },
  );
}

/** Sets every handler of the question. Called before the run's first await, so no message is dropped. */
export function setQuestionHandlers(run: QuestionRun): void {
  const { question } = run;
  setHandler(getQuestionQuery, () => question.record);
  setHandler(answerSignal, (answer: unknown) => {
    run.handled.signals += 1;
    question.receiveSignal(answer, nowIso(), (refusal) => announceRefusal(run, refusal));
  });
  setHandler(notificationPostedSignal, (report: unknown) => {
    run.handled.signals += 1;
    const checked = notificationPostedOf(report);
    if (checked === undefined || run.posted.length >= MAX_POSTED) return;
    if (!run.posted.some((entry) => entry.target === checked.target && entry.ts === checked.ts)) {
      run.posted.push(checked);
    }
  });
  setCheckedUpdate(
    run,
    submitAnswerUpdate,
    (answer, updateId) => question.checkSubmit(answer, updateId),
    (answer, updateId) => question.submit(answer, nowIso(), updateId),
  );
  setCheckedUpdate(
    run,
    decideUpdate,
    (decision, updateId) => question.checkDecide(decision, updateId),
    (decision, updateId) => {
      const outcome = question.decide(decision, nowIso(), updateId);
      announceProgress(run);
      return outcome;
    },
  );
  setCheckedUpdate(
    run,
    declineUpdate,
    (decline) => question.checkDecline(decline),
    (decline) => {
      const outcome = question.decline(decline, nowIso());
      announceProgress(run);
      return outcome;
    },
  );
  setCheckedUpdate(
    run,
    extendDeadlineUpdate,
    (change) => question.checkExtend(change, nowIso()),
    (change) => {
      const outcome = question.extend(change, nowIso());
      const { expiresAt } = question.record;
      if (expiresAt !== undefined) upsertMemo({ expiresAt } satisfies Partial<QuestionMemo>);
      setCurrentDetails(question.currentDetails);
      return outcome;
    },
  );
}
