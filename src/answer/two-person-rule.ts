/**
 * The two-person rule and separation of duties for approvals: a policy's `requiredApprovals` (that many
 * distinct people approve the same input before the call runs), `requiredRejections` (that many distinct people
 * reject it before it is denied; one, unless the operator set more) and `forbidSelfApproval` (whoever asked for
 * the call may not decide it). Pure functions of a question's record and the policy in force: the workflow's
 * `decide` and `decline` validators refuse by them, and every surface words the progress with them.
 *
 * Dependency-free and deterministic: runs in the workflow sandbox.
 */
import type { ApprovalDecisionType, QuestionRecord, ResolvedQuestionPolicy } from '../types';

/** Refusals under the rule start with the policy field they enforce, so a batch can tell them from others. */
export const TWO_PERSON_RULE_FIELDS = [
  'requiredApprovals',
  'requiredRejections',
  'forbidSelfApproval',
] as const;

/** The rule a policy sets for an approval: how many approvals, how many rejections, and whether the requester is kept out. */
export interface TwoPersonRule {
  requiredApprovals: number;
  requiredRejections: number;
  forbidSelfApproval: boolean;
}

/** The rule of `policy`: one approval or one rejection decides, and nobody is kept out, unless the operator set otherwise. */
export function twoPersonRuleOf(policy: ResolvedQuestionPolicy): TwoPersonRule {
  return {
    requiredApprovals: policy.requiredApprovals ?? 1,
    requiredRejections: policy.requiredRejections ?? 1,
    forbidSelfApproval: policy.forbidSelfApproval === true,
  };
}

/**
 * Why a standing grant may not decide a call under `policy`, naming the field, or `undefined` when it may: a
 * grant is one person's decision, which a `requiredApprovals` above 1 rules out. One message wherever the rule
 * keeps a grant out: the grants workflow refusing a grant, a question not using one, a provider not asking.
 */
export function grantDecisionRefusal(policy: ResolvedQuestionPolicy): string | undefined {
  const { requiredApprovals } = twoPersonRuleOf(policy);
  if (requiredApprovals <= 1) return undefined;
  return `requiredApprovals: the policy needs ${requiredApprovals} approvals from distinct people for each call, and a standing grant is one person's decision`;
}

/** Whether a decision of `type` approves the call (`approve`, `edit`) rather than refusing it (`reject`, `respond`). */
export function isApproving(type: ApprovalDecisionType): type is 'approve' | 'edit' {
  return type === 'approve' || type === 'edit';
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
  if (rule.requiredApprovals > 1 && isApproving(type)) {
    return `requiredApprovals: this call needs ${rule.requiredApprovals} approvals from distinct people, so an approval must name who gives it (decidedBy)`;
  }
  if (rule.requiredRejections > 1 && !isApproving(type)) {
    return `requiredRejections: this call is denied by ${rule.requiredRejections} rejections from distinct people, so a rejection must name who gives it (decidedBy)`;
  }
  if (rule.forbidSelfApproval && record.approval?.requestedBy !== undefined) {
    return `forbidSelfApproval: whoever asked for this call may not decide it, so a decision must name who takes it (decidedBy)`;
  }
  return undefined;
}

/**
 * Why the rule refuses `decidedBy`'s decision of `type`, or `undefined`: the requester deciding their own call,
 * someone approving a second time (naming their earlier approval), or, where rejections are counted too,
 * someone deciding a second time at all (each person has one say). Under one required rejection, a rejection or
 * a response from anyone else always stands, an earlier approver's too: one "no" stops the call.
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
  const approved = record.approvals?.find((given) => samePerson(given.decidedBy, decidedBy));
  const rejected = record.rejections?.find((given) => samePerson(given.decidedBy, decidedBy));
  const field = isApproving(type) ? 'requiredApprovals' : 'requiredRejections';
  if (approved !== undefined && (isApproving(type) || rule.requiredRejections > 1)) {
    return `${field}: ${approved.decidedBy} already approved this call at ${approved.decidedAt} (${progressWords(record)}); the next ${isApproving(type) ? 'approval' : 'decision'} must come from someone else`;
  }
  if (rejected !== undefined) {
    return `${field}: ${rejected.decidedBy} already rejected this call at ${rejected.decidedAt} (${rejectionWords(record)}); the next decision must come from someone else`;
  }
  return undefined;
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

/** "1 of 2 approvals": `given` of `required`, with the noun in the number `required` takes. */
function countWords(given: number, required: number, noun: string): string {
  return `${given} of ${required} ${noun}${required === 1 ? '' : 's'}`;
}

/** "1 of 2 approvals": how many of the required approvals were given. */
export function progressWords(record: Pick<QuestionRecord, 'approvals' | 'requiredApprovals'>): string {
  return countWords(record.approvals?.length ?? 0, record.requiredApprovals ?? 1, 'approval');
}

/** "1 of 2 rejections": how many of the rejections that deny the call were given. */
export function rejectionWords(record: Pick<QuestionRecord, 'rejections' | 'requiredRejections'>): string {
  return countWords(record.rejections?.length ?? 0, record.requiredRejections ?? 1, 'rejection');
}

type Counted = Pick<QuestionRecord, 'approvals' | 'requiredApprovals' | 'rejections' | 'requiredRejections'>;

/**
 * "1 of 2 approvals (alice)" while approvals are counted, and "1 of 2 rejections (bob)" while rejections are,
 * joined by "; " (without the names when `names` is false); `undefined` for a call one decision decides.
 */
export function approvalProgress(record: Counted, names = true): string | undefined {
  const parts: string[] = [];
  const named = (words: string, given: { decidedBy: string }[] | undefined): string =>
    !names || given === undefined || given.length === 0
      ? words
      : `${words} (${given.map((each) => each.decidedBy).join(', ')})`;
  if ((record.requiredApprovals ?? 1) > 1) parts.push(named(progressWords(record), record.approvals));
  if ((record.requiredRejections ?? 1) > 1) parts.push(named(rejectionWords(record), record.rejections));
  return parts.length === 0 ? undefined : parts.join('; ');
}

/** Whether a refusal's message is the two-person rule's (it starts with the policy field it enforces). */
export function isTwoPersonRefusal(message: string): boolean {
  return TWO_PERSON_RULE_FIELDS.some((field) => message.startsWith(`${field}: `));
}
