/**
 * What a pending question hands the next run of its workflow when it continues as new, and the checks the next
 * run makes of it. The continuation is an argument anyone could pass by hand with the stock Temporal CLI, so
 * every field is checked before the question trusts it. Pure.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { isPlainObject } from '../common';
import type { QuestionOutcome, ResolvedQuestionPolicy } from '../types';
import { INVALID_ARGS, refusal } from '../question/failures';
import { MAX_REQUIRED_APPROVALS } from '../question/question-policy';
import type { NotificationPosted } from '../question/webhook-event';
import { MAX_REJECTED_ANSWERS } from './question-rules';
import { MAX_DEADLINE_CHANGES } from './question-schedule';

/** Chat messages one question keeps (one per chat target, in practice): bounds its state. */
export const MAX_POSTED = 20;

/**
 * The question's own part of a continuation: its record without the questions (the next run gets the same
 * input, which holds them) and what the record does not show: the policy in force, with the worker's already
 * beneath the question's own, the deadline, when the last reminder went out and how many times the deadline was
 * changed. A plain JSON object.
 */
export interface QuestionSnapshot {
  record: QuestionOutcome;
  policy: ResolvedQuestionPolicy;
  /** The deadline, epoch milliseconds. */
  deadlineMs?: number;
  /** When the last reminder went out, epoch milliseconds: the next is counted from it. */
  lastReminderAtMs?: number;
  /** How many times `extendDeadline` moved the deadline (the record keeps only the last 20 changes). */
  deadlineVersion: number;
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

function invalid(path: string, reason: string): ReturnType<typeof refusal> {
  return refusal(INVALID_ARGS, `invalid arguments: ${path}: ${reason}`);
}

/** `INVALID_ARGS` naming the snapshot's field. */
function badSnapshot(field: string, reason: string): ReturnType<typeof refusal> {
  return invalid(field === '' ? 'continuation.state' : `continuation.state.${field}`, reason);
}

function optionalTime(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw badSnapshot(field, 'must be epoch milliseconds');
  return value;
}

/** The record of a snapshot: a pending question's, with its timestamps and bounded lists. */
function snapshotRecordOf(record: unknown): QuestionOutcome {
  if (!isPlainObject(record)) throw badSnapshot('record', 'must be an object');
  if (record.status !== 'pending') throw badSnapshot('record.status', 'only a pending question continues');
  if (typeof record.askedAt !== 'string' || Number.isNaN(Date.parse(record.askedAt))) {
    throw badSnapshot('record.askedAt', 'must be an ISO-8601 timestamp');
  }
  const rejected = record.rejectedAnswers;
  if (!Array.isArray(rejected) || rejected.length > MAX_REJECTED_ANSWERS) {
    throw badSnapshot('record.rejectedAnswers', `must be a list of at most ${MAX_REJECTED_ANSWERS}`);
  }
  const changes = record.deadlineChanges;
  if (changes !== undefined && (!Array.isArray(changes) || changes.length > MAX_DEADLINE_CHANGES)) {
    throw badSnapshot('record.deadlineChanges', `must be a list of at most ${MAX_DEADLINE_CHANGES}`);
  }
  for (const field of ['approvals', 'rejections'] as const) {
    const given = record[field];
    if (given !== undefined && (!Array.isArray(given) || given.length >= MAX_REQUIRED_APPROVALS)) {
      // A pending approval holds fewer than the most a policy can require: the last one decides it.
      throw badSnapshot(`record.${field}`, `must be a list of fewer than ${MAX_REQUIRED_APPROVALS}`);
    }
  }
  return record as unknown as QuestionOutcome;
}

/**
 * A snapshot as `QuestionState.snapshot` writes it, checked field by field: only a pending question continues,
 * with its timestamps, its bounded lists and its policy in the shapes this code keeps.
 *
 * @throws ApplicationFailure `INVALID_ARGS` naming the field
 */
export function snapshotOf(value: unknown): QuestionSnapshot {
  if (!isPlainObject(value)) throw badSnapshot('', 'must be an object');
  const record = snapshotRecordOf(value.record);
  const { policy, deadlineVersion } = value;
  if (!isPlainObject(policy)) throw badSnapshot('policy', 'must be an object');
  if (typeof deadlineVersion !== 'number' || !Number.isSafeInteger(deadlineVersion) || deadlineVersion < 0) {
    throw badSnapshot('deadlineVersion', 'must be a whole number, 0 or more');
  }
  const snapshot: QuestionSnapshot = { record, policy, deadlineVersion };
  const deadlineMs = optionalTime(value.deadlineMs, 'deadlineMs');
  if (deadlineMs !== undefined) snapshot.deadlineMs = deadlineMs;
  const lastReminderAtMs = optionalTime(value.lastReminderAtMs, 'lastReminderAtMs');
  if (lastReminderAtMs !== undefined) snapshot.lastReminderAtMs = lastReminderAtMs;
  return snapshot;
}

/** A `notificationPosted` report with three short strings, or `undefined`: anything else is ignored. */
export function notificationPostedOf(report: unknown): NotificationPosted | undefined {
  if (!isPlainObject(report)) return undefined;
  const { target, channel, ts } = report;
  const short = (value: unknown): value is string =>
    typeof value === 'string' && value !== '' && value.length <= 3000;
  return short(target) && short(channel) && short(ts) ? { target, channel, ts } : undefined;
}

/**
 * The second argument of a run, checked: its state by `QuestionState.resume`, the rest here. Only a run that
 * continues another one takes it (`continued`), so a start by hand cannot pass a question off as half answered.
 *
 * @throws ApplicationFailure `INVALID_ARGS` naming the field
 */
export function continuationOf(value: unknown, continued: boolean): QuestionContinuation {
  if (!continued) {
    throw invalid(
      'continuation',
      'only a question continuing as new passes one; start a question with its input alone',
    );
  }
  if (!isPlainObject(value)) throw invalid('continuation', 'must be an object');
  const { state, targets, posted } = value;
  if (!Array.isArray(targets) || !targets.every((url) => typeof url === 'string')) {
    throw invalid('continuation.targets', 'must be a list of URLs');
  }
  if (!Array.isArray(posted) || posted.length > MAX_POSTED) {
    throw invalid('continuation.posted', `must be a list of at most ${MAX_POSTED}`);
  }
  const receipts = posted.map(notificationPostedOf);
  if (receipts.some((receipt) => receipt === undefined)) {
    throw invalid('continuation.posted', 'each must be { target, channel, ts }');
  }
  return { state: state as QuestionSnapshot, targets, posted: receipts as NotificationPosted[] };
}
