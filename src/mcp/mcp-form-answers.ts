/**
 * The answers a task's forms send (`tasks/update`), found again in the question's record: what the person at the
 * client sees next is read from Temporal, not from one server's memory, so any instance, and one restarted, shows
 * the same status and the same forms.
 *
 * Each answer from a task's forms carries an `answerId` naming the form attempt it answers
 * (`mcp-form-<attempt>-<uuid>`). A refused one is kept by the question's workflow in `rejectedAnswers` under that
 * id, with the reason: the next forms are the next attempt (new keys), topped by that reason. One that no worker
 * has validated yet is listed in `unvalidatedAnswers` under its id.
 *
 * Dependency-free and pure.
 */
import type { QuestionRecord, UnvalidatedAnswer } from '../types';

const FORM_ANSWER_ID = /^mcp-form-(\d+)-/;

/** The `answerId` of an answer to the forms of `attempt`; `unique` tells two answers to one attempt apart. */
export function formAnswerId(attempt: number, unique: string): string {
  return `mcp-form-${attempt}-${unique}`;
}

/** The attempt an answer from a task's forms answered, or `undefined` for any other answer. */
function attemptOf(answerId: string | undefined): number | undefined {
  const match = FORM_ANSWER_ID.exec(answerId ?? '');
  return match === null ? undefined : Number(match[1]);
}

/** What the forms after a refused answer say first. */
export function refusalNote(reason: string): string {
  return `Your answer was not recorded: ${reason.replace(/\.$/, '')}.`;
}

/**
 * The attempt a pending question's forms are at (0 before any refused form answer, one past the latest refused
 * one's after), and why that one was refused.
 */
export function formAttempt(record: QuestionRecord): { attempt: number; note?: string } {
  let latest: { attempt: number; reason: string } | undefined;
  for (const refused of record.rejectedAnswers) {
    const attempt = attemptOf(refused.answerId);
    if (attempt !== undefined && (latest === undefined || attempt >= latest.attempt)) {
      latest = { attempt, reason: refused.reason };
    }
  }
  return latest === undefined
    ? { attempt: 0 }
    : { attempt: latest.attempt + 1, note: refusalNote(latest.reason) };
}

/** The latest answer from a task's forms that waits for a worker to validate it, if any. */
export function formAnswerAwaitingWorker(record: QuestionRecord): UnvalidatedAnswer | undefined {
  return (record.unvalidatedAnswers ?? []).findLast((answer) => attemptOf(answer.answerId) !== undefined);
}
