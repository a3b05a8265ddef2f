/**
 * How an approval under the two-person rule moves: the `decide` and `decline` validators' checks of the rule
 * (`answer/two-person-rule.ts`), and the counting of approvals (and, when an operator set more than one, of
 * rejections) in the record until the policy's count is met. Only then is the decision recorded and the agent
 * told, once. A call one decision decides never reaches the counting: its first decision decides, as before the
 * rule existed, so the histories of those calls replay unchanged.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { definedFields } from '../common';
import { approvedInputSha256 } from '../answer/decision-binding';
import {
  deciderRefusal,
  disagreement,
  isApproving,
  twoPersonRuleOf,
  unnamedRefusal,
} from '../answer/two-person-rule';
import { BAD_ANSWER, FORBIDDEN, INVALID_ARGS, refusal } from '../question/failures';
import type { DecideInput, QuestionRecord, ResolvedQuestionPolicy } from '../types';

/** The rule a `BAD_ANSWER` carries when an approval does not approve the input approved before it. */
export const APPROVALS_AGREE_RULE = 'approvals-agree';

/**
 * SHA-256 of the input a decision approves (`approvedInputSha256`, the one choice of which input). Input reaches
 * the workflow through JSON, so an approving decision always has one; the empty string, which no hash equals,
 * stands for none rather than throwing in the workflow.
 */
function approvedSha256(record: QuestionRecord, decision: DecideInput): string {
  return approvedInputSha256(record.approval?.input, decision) ?? '';
}

/**
 * Refuses what the two-person rule of `policy` forbids: an unnamed decision the rule must count or compare
 * (`INVALID_ARGS`), the requester deciding (`FORBIDDEN`), one person approving twice, or deciding twice where
 * rejections are counted (`FORBIDDEN`, naming the earlier decision), an approval of other input than the
 * approvals before it (`BAD_ANSWER`).
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
  if (rule.requiredApprovals > 1 && isApproving(type)) {
    const differs = disagreement(record, approvedSha256(record, decision));
    if (differs !== undefined) throw refusal(BAD_ANSWER, differs, APPROVALS_AGREE_RULE);
  }
}

/**
 * Counts a checked decision toward the rule of `policy`: an approval or an edit under `requiredApprovals` above
 * 1 joins the record's `approvals`, a rejection or a response under `requiredRejections` above 1 its
 * `rejections`. Returns whether the decision decides the call now: once it is the last one its side needs (at
 * once, where that side needs one).
 */
export function countsToDecide(
  record: QuestionRecord,
  policy: ResolvedQuestionPolicy,
  decision: DecideInput,
  now: string,
): boolean {
  const rule = twoPersonRuleOf(policy);
  const decidedBy = decision.decidedBy ?? '';
  if (decision.type === 'approve' || decision.type === 'edit') {
    if (rule.requiredApprovals <= 1) return true;
    const approval = { decidedBy, decidedAt: now, type: decision.type };
    const inputSha = approvedSha256(record, decision);
    const edited = decision.type === 'edit' ? { input: decision.input } : {};
    record.approvals = [...(record.approvals ?? []), { ...approval, inputSha256: inputSha, ...edited }];
    return record.approvals.length >= rule.requiredApprovals;
  }
  if (rule.requiredRejections <= 1) return true;
  const { type, reason, text } = decision;
  const rejection = { decidedBy, decidedAt: now, type, ...definedFields({ reason, text }) };
  record.rejections = [...(record.rejections ?? []), rejection];
  return record.rejections.length >= rule.requiredRejections;
}

/** Copies the rule's counts into the record of an approval that needs more than one, where surfaces read them. */
export function showRequiredApprovals(record: QuestionRecord, policy: ResolvedQuestionPolicy): void {
  const { requiredApprovals, requiredRejections } = twoPersonRuleOf(policy);
  if (record.approval !== undefined && requiredApprovals > 1) record.requiredApprovals = requiredApprovals;
  else delete record.requiredApprovals;
  if (record.approval !== undefined && requiredRejections > 1) record.requiredRejections = requiredRejections;
  else delete record.requiredRejections;
}
