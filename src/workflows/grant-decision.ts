/**
 * An approval a standing grant covers: the provider checked coverage with the agent's grants workflow and
 * started the approval with the grant in its input, so the question records the call approved by the grant as
 * it starts (`decidedBy: "grant:<id>"`, the grant's id, granter and expiry in `decision.grant`) and ends in its
 * first task, with no person and no notification.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { isPlainObject } from '../common';
import type { ApprovalGrant, AskUserQuestionWorkflowInput, QuestionRecord } from '../types';
import { INVALID_ARGS, refusal } from '../question/failures';
import { GRANT_DECIDER_PREFIX } from '../question/grant-definitions';
import { recordedDecision } from '../answer/decision-binding';

/** The input's `grant`, checked for shape: it can be given by hand, with the stock Temporal CLI. */
function grantOf(input: AskUserQuestionWorkflowInput): ApprovalGrant {
  const grant: unknown = input.grant;
  if (input.approval === undefined) {
    throw refusal(INVALID_ARGS, 'invalid arguments: grant: only an approval can be approved by a grant');
  }
  if (!isPlainObject(grant)) throw refusal(INVALID_ARGS, 'invalid arguments: grant: must be an object');
  for (const field of ['id', 'grantedBy', 'grantedAt', 'expiresAt'] as const) {
    if (typeof grant[field] !== 'string' || grant[field] === '')
      throw refusal(INVALID_ARGS, `invalid arguments: grant.${field}: must be a non-empty string`);
  }
  const { id, grantedBy, grantedAt, expiresAt } = grant as unknown as ApprovalGrant;
  return { id, grantedBy, grantedAt, expiresAt };
}

/**
 * Records the approval as the grant's when the question was started with one, and says whether it did: the
 * question is then decided, and the workflow skips its start (worker defaults, notifications) and its wait.
 *
 * @param record the question's record, as `QuestionState.record` holds it
 * @throws ApplicationFailure `INVALID_ARGS` naming the field, for a grant on questions or of the wrong shape
 */
export function approvedByGrant(
  input: AskUserQuestionWorkflowInput,
  record: QuestionRecord,
  now: string,
): boolean {
  if (input.grant === undefined) return false;
  const grant = grantOf(input);
  const approved = recordedDecision(
    { type: 'approve', decidedBy: `${GRANT_DECIDER_PREFIX}${grant.id}` },
    now,
    input.approval?.input,
  );
  record.decision = { ...approved, type: 'approve', grant };
  record.status = 'answered';
  record.resolvedAt = now;
  return true;
}
