/**
 * The handlers of a question's messages: the `getQuestion` query, the `answer` and `notificationPosted` signals,
 * and the `submitAnswer`, `decide`, `decline` and `extendDeadline` updates, each wired to the question's state.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import type { UpdateDefinition } from '@temporalio/common';
import { currentUpdateInfo, setCurrentDetails, setHandler, upsertMemo } from '@temporalio/workflow';
import type { QuestionOutcome } from '../types';
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
import { nowIso, type QuestionRun } from './question-run';

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
    question.receiveSignal(answer, nowIso());
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
    (decision, updateId) => question.decide(decision, nowIso(), updateId),
  );
  setCheckedUpdate(
    run,
    declineUpdate,
    (decline) => question.checkDecline(decline),
    (decline) => question.decline(decline, nowIso()),
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
