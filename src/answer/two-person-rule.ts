/**
 * The two-person rule and separation of duties for approvals: a policy's `requiredApprovals` (that many
 * distinct people approve the same input before the call runs) and `forbidSelfApproval` (whoever asked for the
 * call may not decide it). Pure functions of a question's record and the policy in force: the workflow's
 * `decide` and `decline` validators refuse by them, and every surface words the progress with them.
 *
 * Dependency-free and deterministic: runs in the workflow sandbox.
 */
import type { ApprovalDecisionType, GivenApproval, QuestionRecord, ResolvedQuestionPolicy } from '../types';

/** Refusals under the rule start with the policy field they enforce, so a batch can tell them from others. */
export const TWO_PERSON_RULE_FIELDS = ['requiredApprovals', 'forbidSelfApproval'] as const;

/** The rule a policy sets for an approval: how many approvals, and whether the requester is kept out. */
export interface TwoPersonRule {
  requiredApprovals: number;
  forbidSelfApproval: boolean;
}

/** The rule of `policy`: one approval and no separation of duties unless the operator set otherwise. */
export function twoPersonRuleOf(policy: ResolvedQuestionPolicy): TwoPersonRule {
  return {
    requiredApprovals: policy.requiredApprovals ?? 1,
    forbidSelfApproval: policy.forbidSelfApproval === true,
  };
}

/**
 * Whether two names are one person's. Names are compared without regard to case or surrounding blanks, so
 * `Alice` cannot count as a second approver beside `alice`.
 */
export function samePerson(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * Why a decision with no decider's name cannot stand under `rule` (the rule counts and compares names), or
 * `undefined` when it may.
 */
export function unnamedRefusal(
  record: QuestionRecord,
  rule: TwoPersonRule,
  type: ApprovalDecisionType,
): string | undefined {
  if (rule.requiredApprovals > 1 && (type === 'approve' || type === 'edit')) {
    return `requiredApprovals: this call needs ${rule.requiredApprovals} approvals from distinct people, so an approval must name who gives it (decidedBy)`;
  }
  if (rule.forbidSelfApproval && record.approval?.requestedBy !== undefined) {
    return `forbidSelfApproval: whoever asked for this call may not decide it, so a decision must name who takes it (decidedBy)`;
  }
  return undefined;
}

/**
 * Why the rule refuses `decidedBy`'s decision of `type`, or `undefined`: the requester deciding their own call,
 * or someone approving a second time (naming their earlier approval). A rejection or a response from anyone
 * else always stands: one "no" stops the call.
 */
export function deciderRefusal(
  record: QuestionRecord,
  rule: TwoPersonRule,
  decidedBy: string,
  type: ApprovalDecisionType,
): string | undefined {
  const requester = record.approval?.requestedBy;
  if (rule.forbidSelfApproval && requester !== undefined && samePerson(requester, decidedBy)) {
    return `forbidSelfApproval: ${decidedBy} asked for this call of ${record.approval?.toolName ?? 'a tool'}, so ${decidedBy} may not decide it; someone else must`;
  }
  if (type !== 'approve' && type !== 'edit') return undefined;
  const earlier = record.approvals?.find((given) => samePerson(given.decidedBy, decidedBy));
  if (earlier === undefined) return undefined;
  return `requiredApprovals: ${earlier.decidedBy} already approved this call at ${earlier.decidedAt} (${progressWords(record)}); the next approval must come from someone else`;
}

/**
 * Why an approval of `inputSha256` does not agree with those given before, or `undefined`. Every approval of
 * one call approves the same input: the count is of people who approved one thing.
 */
export function disagreement(record: QuestionRecord, inputSha256: string): string | undefined {
  const first = record.approvals?.[0];
  if (first === undefined || first.inputSha256 === inputSha256) return undefined;
  const what =
    first.type === 'edit'
      ? `an edited input (sha256 ${first.inputSha256.slice(0, 12)}): send an edit with that same input to approve it`
      : 'the input as asked: approve it without an edit';
  return `requiredApprovals: every approval of a call must approve the same input; ${first.decidedBy} approved ${what}, or reject the call`;
}

/** "1 of 2 approvals": how many of the required approvals were given. */
export function progressWords(record: Pick<QuestionRecord, 'approvals' | 'requiredApprovals'>): string {
  const given = record.approvals?.length ?? 0;
  return `${given} of ${record.requiredApprovals ?? 1} approval${(record.requiredApprovals ?? 1) === 1 ? '' : 's'}`;
}

/** "1 of 2 approvals (alice)" while approvals are counted; `undefined` for a call that needs one. */
export function approvalProgress(
  record: Pick<QuestionRecord, 'approvals' | 'requiredApprovals'>,
): string | undefined {
  if (record.requiredApprovals === undefined || record.requiredApprovals <= 1) return undefined;
  const names = (record.approvals ?? []).map((given: GivenApproval) => given.decidedBy);
  return names.length === 0 ? progressWords(record) : `${progressWords(record)} (${names.join(', ')})`;
}

/** Whether a refusal's message is the two-person rule's (it starts with the policy field it enforces). */
export function isTwoPersonRefusal(message: string): boolean {
  return TWO_PERSON_RULE_FIELDS.some((field) => message.startsWith(`${field}: `));
}
