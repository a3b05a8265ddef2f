/**
 * How an approval under the two-person rule moves: the `decide` and `decline` validators' checks of the rule
 * (`answer/two-person-rule.ts`), and the counting of approvals in the record until the policy's
 * `requiredApprovals` is met. Only then is the decision recorded and the agent told, once. A call that needs
 * one approval never reaches the counting: its first decision decides, as before the rule existed, so the
 * histories of those calls replay unchanged.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { inputSha256 } from '../answer/input-hash';
import { deciderRefusal, disagreement, twoPersonRuleOf, unnamedRefusal } from '../answer/two-person-rule';
import { BAD_ANSWER, FORBIDDEN, INVALID_ARGS, refusal } from '../question/failures';
import type { DecideInput, GivenApproval, QuestionRecord, ResolvedQuestionPolicy } from '../types';

/** The rule a `BAD_ANSWER` carries when an approval does not approve the input approved before it. */
export const APPROVALS_AGREE_RULE = 'approvals-agree';

/** SHA-256 of the input a decision approves: the edited input of an edit, else the input as asked. */
function approvedInputSha256(record: QuestionRecord, decision: DecideInput): string {
  return inputSha256(decision.type === 'edit' ? decision.input : record.approval?.input);
}

/**
 * Refuses what the two-person rule of `policy` forbids: an unnamed decision the rule must count or compare
 * (`INVALID_ARGS`), the requester deciding (`FORBIDDEN`), one person approving twice (`FORBIDDEN`, naming the
 * earlier approval), an approval of other input than the approvals before it (`BAD_ANSWER`).
 */
export function refuseUnderRule(
  record: QuestionRecord,
  policy: ResolvedQuestionPolicy,
  decision: DecideInput,
): void {
  const rule = twoPersonRuleOf(policy);
  const { decidedBy, type } = decision;
  if (decidedBy === undefined || decidedBy.trim() === '') {
    const unnamed = unnamedRefusal(record, rule, type);
    if (unnamed !== undefined) throw refusal(INVALID_ARGS, `invalid arguments: ${unnamed}`);
    return;
  }
  const refused = deciderRefusal(record, rule, decidedBy, type);
  if (refused !== undefined) throw refusal(FORBIDDEN, refused);
  if (rule.requiredApprovals > 1 && (type === 'approve' || type === 'edit')) {
    const differs = disagreement(record, approvedInputSha256(record, decision));
    if (differs !== undefined) throw refusal(BAD_ANSWER, differs, APPROVALS_AGREE_RULE);
  }
}

/**
 * Counts a checked decision toward the rule of `policy`: an approval or an edit, under `requiredApprovals` above 1, joins
 * the record's `approvals`. Returns whether the decision decides the call now: a rejection or a response
 * always does, an approval once it is the last one the rule needs.
 */
export function countsToDecide(
  record: QuestionRecord,
  policy: ResolvedQuestionPolicy,
  decision: DecideInput,
  now: string,
): boolean {
  const rule = twoPersonRuleOf(policy);
  if (rule.requiredApprovals <= 1 || (decision.type !== 'approve' && decision.type !== 'edit')) return true;
  const given: GivenApproval = {
    decidedBy: decision.decidedBy ?? '',
    decidedAt: now,
    type: decision.type,
    inputSha256: approvedInputSha256(record, decision),
    ...(decision.type === 'edit' ? { input: decision.input } : {}),
  };
  record.approvals = [...(record.approvals ?? []), given];
  return record.approvals.length >= rule.requiredApprovals;
}

/** Copies the rule's count into the record of an approval that needs more than one, where surfaces read it. */
export function showRequiredApprovals(record: QuestionRecord, policy: ResolvedQuestionPolicy): void {
  const rule = twoPersonRuleOf(policy);
  if (record.approval !== undefined && rule.requiredApprovals > 1) {
    record.requiredApprovals = rule.requiredApprovals;
  } else delete record.requiredApprovals;
}
