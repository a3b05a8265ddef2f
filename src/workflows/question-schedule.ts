/**
 * A question's schedule, from its policy: when it reminds, escalates and expires, what it becomes at its
 * deadline, and how an `extendDeadline` moves that deadline. Pure: every time is passed in, in epoch
 * milliseconds or ISO-8601.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { definedFields, isPlainObject } from '../common';
import { isRecommendedLabel } from '../answer/answer-rules';
import { isUndecodablePayload } from '../answer/undecodable-payload';
import type {
  AskUserQuestion,
  AskUserQuestionAnswer,
  DeadlineChange,
  DecideInput,
  QuestionRecord,
  ResolvedQuestionPolicy,
} from '../types';
import { INVALID_ARGS, refusal } from '../question/failures';
import {
  DEFAULT_MAX_REMINDERS,
  MAX_POLICY_DURATION_MS,
  POLICY_EXPIRED_ANSWERER,
  parseDuration,
} from '../question/question-policy';

/** Deadline changes kept in the record (the latest ones), so state stays bounded. */
export const MAX_DEADLINE_CHANGES = 20;

/** What the question's timer wakes it for. */
export type QuestionTimerReason = 'remind' | 'escalate' | 'expire';

/** The question's next timer: when (epoch milliseconds) and what is due then. */
export interface QuestionWake {
  at: number;
  due: QuestionTimerReason[];
}

/** What a pending question's schedule is computed from. */
export interface QuestionSchedule {
  record: Pick<QuestionRecord, 'remindersSent' | 'escalatedAt'>;
  policy: ResolvedQuestionPolicy;
  askedAtMs: number;
  deadlineMs: number | undefined;
  lastReminderAtMs: number | undefined;
}

/** A checked `extendDeadline`: the new deadline (epoch milliseconds) and who changed it. */
export interface DeadlineExtension {
  to: number;
  extendedBy?: string;
}

/** `30m`, `2h`, `1500ms`: the largest unit that divides the duration exactly. */
export function formatDuration(milliseconds: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1_000, 's'],
  ];
  for (const [size, unit] of units) {
    if (milliseconds >= size && milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return `${milliseconds}ms`;
}

/**
 * The answer the `recommended` expiry gives: each question's first option marked Recommended, and a question
 * without one skipped.
 */
export function recommendedAnswer(questions: readonly AskUserQuestion[]): AskUserQuestionAnswer {
  return {
    answers: questions.map((question) => {
      const recommended = question.options?.find((option) => isRecommendedLabel(option.label));
      return { id: question.id, selected: recommended === undefined ? [] : [recommended.label] };
    }),
  };
}

/**
 * The question's next timer: the earliest of its deadline, its next reminder and its escalation, with everything
 * due at that moment. A deadline due with other things wins: the question resolves, and the resolved
 * notification says so. `undefined` when nothing is scheduled.
 */
export function nextWake(schedule: QuestionSchedule): QuestionWake | undefined {
  const { record, policy, askedAtMs, deadlineMs, lastReminderAtMs } = schedule;
  const candidates: [number, QuestionTimerReason][] = [];
  if (deadlineMs !== undefined) candidates.push([deadlineMs, 'expire']);
  const { remindEveryMs, escalateAfterMs, escalateTo } = policy;
  const maxReminders = policy.maxReminders ?? DEFAULT_MAX_REMINDERS;
  if (remindEveryMs !== undefined && (record.remindersSent ?? 0) < maxReminders) {
    // Counted from the last reminder sent, so reminders missed while no worker ran come as one, not a burst.
    candidates.push([(lastReminderAtMs ?? askedAtMs) + remindEveryMs, 'remind']);
  }
  if (escalateAfterMs !== undefined && (escalateTo?.length ?? 0) > 0 && record.escalatedAt === undefined) {
    candidates.push([askedAtMs + escalateAfterMs, 'escalate']);
  }
  if (candidates.length === 0) return undefined;
  const at = Math.min(...candidates.map(([time]) => time));
  const due = candidates.filter(([time]) => time === at).map(([, reason]) => reason);
  return { at, due: due.includes('expire') ? ['expire'] : due };
}

/**
 * What an approval's deadline decides: a rejection the model reads, unless an operator set
 * `onExpiry: 'approve'`. Never a silent approval otherwise.
 */
export function expiryDecision(policy: ResolvedQuestionPolicy, after: string): DecideInput {
  return policy.onExpiry === 'approve'
    ? { type: 'approve', decidedBy: POLICY_EXPIRED_ANSWERER }
    : {
        type: 'reject',
        reason: `nobody decided within ${after}, so the call was not approved`,
        decidedBy: POLICY_EXPIRED_ANSWERER,
      };
}

function invalidExtension(path: string, reason: string): ReturnType<typeof refusal> {
  return refusal(INVALID_ARGS, `invalid arguments: extendDeadline${path}: ${reason}`);
}

/**
 * Checks an `extendDeadline` argument: `{ by, extendedBy? }` with a non-zero duration that leaves the deadline
 * after the question was asked. A question with no deadline gets one counted from `now` (ISO-8601).
 *
 * @throws ApplicationFailure `INVALID_ARGS` naming the field
 */
export function deadlineExtensionOf(
  input: unknown,
  schedule: Pick<QuestionSchedule, 'askedAtMs' | 'deadlineMs'>,
  now: string,
): DeadlineExtension {
  if (isUndecodablePayload(input)) throw invalidExtension('', `could not be decoded: ${input.undecodable}`);
  if (!isPlainObject(input)) throw invalidExtension('', 'must be an object with a duration in by');
  const by = parseDuration(input.by, { signed: true });
  if (by === undefined) {
    throw invalidExtension('.by', 'must be a duration such as 2h or -30m, or a whole number of milliseconds');
  }
  if (by === 0) throw invalidExtension('.by', 'must not be zero');
  if (Math.abs(by) > MAX_POLICY_DURATION_MS) throw invalidExtension('.by', 'must be at most 365d either way');
  const extendedBy = input.extendedBy;
  if (extendedBy !== undefined && extendedBy !== null && typeof extendedBy !== 'string') {
    throw invalidExtension('.extendedBy', 'must be a string');
  }
  const to = (schedule.deadlineMs ?? Date.parse(now)) + by;
  if (to <= schedule.askedAtMs) {
    const askedAt = new Date(schedule.askedAtMs).toISOString();
    throw invalidExtension(
      '.by',
      `the deadline would be ${new Date(to).toISOString()}, not after the question was asked (${askedAt})`,
    );
  }
  return typeof extendedBy === 'string' ? { to, extendedBy } : { to };
}

/** Adds a deadline change to the record's list, keeping the latest {@link MAX_DEADLINE_CHANGES}. */
export function recordDeadlineChange(
  record: QuestionRecord,
  extension: DeadlineExtension,
  now: string,
): void {
  const change: DeadlineChange = definedFields({
    changedAt: now,
    from: record.expiresAt,
    to: new Date(extension.to).toISOString(),
    extendedBy: extension.extendedBy,
  });
  const changes = (record.deadlineChanges ??= []);
  changes.push(change);
  if (changes.length > MAX_DEADLINE_CHANGES) changes.shift();
}
