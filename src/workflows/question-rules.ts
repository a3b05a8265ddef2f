/**
 * The rules a question's messages are held to beyond the answer and decision rules themselves: names kept for
 * policies, the shape of a decline, how a decision is recorded, and the bounds of what a record keeps. Pure.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { definedFields, isPlainObject } from '../common';
import { isUndecodablePayload } from '../answer/undecodable-payload';
import type { DecideInput, DeclineInput, QuestionRecord } from '../types';
import { INVALID_ARGS, refusal } from '../question/failures';
import { POLICY_ANSWERER_PREFIX } from '../question/question-policy';
import { GRANT_DECIDER_PREFIX } from '../question/grant-definitions';
import { isReservedDecider } from '../question/grant-rules';

/** Signals that broke the rules are kept for the record, but only this many, so state stays bounded. */
export const MAX_REJECTED_ANSWERS = 20;

/** Why an answer may not name itself as a policy. */
export const RESERVED_ANSWERER_REASON = `answeredBy: names starting with "${POLICY_ANSWERER_PREFIX}" are kept for answers a question policy gives`;

/** Why a decision may not name itself as a policy or a standing grant. */
export const RESERVED_DECIDER_REASON = `decidedBy: names starting with "${POLICY_ANSWERER_PREFIX}" or "${GRANT_DECIDER_PREFIX}" are kept for decisions a policy or a standing grant takes`;

/** Whether `name` is one only a policy (or a standing grant) may use. */
export function isReservedName(name: string | undefined): boolean {
  return name !== undefined && isReservedDecider(name);
}

/** `field` of `input` when it is a string; anything else is ignored, never trusted. */
export function stringField(
  input: unknown,
  field: 'answeredBy' | 'declinedBy' | 'decidedBy',
): string | undefined {
  if (!isPlainObject(input)) return undefined;
  const value = input[field];
  return typeof value === 'string' ? value : undefined;
}

/** An answer's `answerId`, when it is a non-empty string; anything else is no id. */
export function answerIdOf(input: unknown): string | undefined {
  if (!isPlainObject(input)) return undefined;
  const answerId = input.answerId;
  return typeof answerId === 'string' && answerId !== '' ? answerId : undefined;
}

/** Whether the answer with this id was recorded or refused (as far as the record's bounded list reaches). */
export function answerSeen(record: QuestionRecord, answerId: string): boolean {
  return record.answerId === answerId || record.rejectedAnswers.some((entry) => entry.answerId === answerId);
}

/**
 * A decline's argument, checked for shape: absent, or `{ reason?, declinedBy? }` with strings.
 *
 * @throws ApplicationFailure `INVALID_ARGS` naming the field
 */
export function declineOf(input: unknown): DeclineInput {
  if (input === undefined || input === null) return {};
  if (isUndecodablePayload(input)) {
    throw refusal(INVALID_ARGS, `invalid arguments: decline: could not be decoded: ${input.undecodable}`);
  }
  if (!isPlainObject(input)) throw refusal(INVALID_ARGS, 'invalid arguments: decline: must be an object');
  for (const field of ['reason', 'declinedBy'] as const) {
    const value = input[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      throw refusal(INVALID_ARGS, `invalid arguments: decline.${field}: must be a string`);
    }
  }
  return input;
}

/** A decline's reason, when it has words in it. */
export function declineReason(decline: DeclineInput): string | undefined {
  return typeof decline.reason === 'string' && decline.reason.trim() !== '' ? decline.reason : undefined;
}

/** Declining an approval rejects it, with the reason: every surface's decline is a safe refusal of the call. */
export function declineDecision(decline: DeclineInput): DecideInput {
  return definedFields({
    type: 'reject' as const,
    reason: declineReason(decline),
    decidedBy: typeof decline.declinedBy === 'string' ? decline.declinedBy : undefined,
  });
}

/** How a checked decision is recorded: one function, shared with the in-memory provider. */
export { recordedDecision } from '../answer/decision-binding';

/**
 * What an update's validator checked, for its handler. The validator and the handler of one update run one
 * after the other, so the handler reuses the check instead of running the rules twice; on replay only the
 * handler runs, and finds nothing here.
 */
export class ValidatedByUpdate<T> {
  private validated: { updateId: string; value: T } | undefined;

  /** Kept for the handler of update `updateId`; a check outside an update keeps nothing. */
  keep(updateId: string | undefined, value: T): void {
    this.validated = updateId === undefined ? undefined : { updateId, value };
  }

  /** What the validator of `updateId` kept, once; `undefined` for any other update. */
  take(updateId: string | undefined): T | undefined {
    const validated = this.validated;
    this.validated = undefined;
    return validated !== undefined && updateId !== undefined && validated.updateId === updateId
      ? validated.value
      : undefined;
  }
}
