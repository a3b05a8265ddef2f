/**
 * An approval a standing grant covers: the provider checked coverage with the agent's grants workflow and
 * started the approval with the grant in its input, so the question records the call approved by the grant as
 * it starts (`decidedBy: "grant:<id>"`, the grant's id, granter and expiry in `decision.grant`) and ends in its
 * first task, with no person and no notification.
 *
 * A grant is one person's decision, so it decides only where the policy in force (the question's own over the
 * worker's) lets one person decide: not under `requiredApprovals` above 1, and not under `forbidSelfApproval`
 * when its granter is the call's requester. Otherwise the approval opens for people as any other, and the
 * record says why the grant was not used (`grantNotUsed`).
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { isPlainObject } from '../common';
import type { ApprovalGrant, AskUserQuestionWorkflowInput, ResolvedQuestionPolicy } from '../types';
import { INVALID_ARGS, refusal } from '../question/failures';
import { GRANT_DECIDER_PREFIX } from '../question/grant-definitions';
import { recordedDecision } from '../answer/decision-binding';
import { samePerson, twoPersonRuleOf } from '../answer/two-person-rule';
import { mergePolicies } from '../question/question-policy';
import type { QuestionState } from './question-state';

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
 * Why the rule in `policy` keeps `grant` from deciding a call `requestedBy` asked for, naming the policy field
 * (as the two-person rule's refusals do), or `undefined` when one person's decision may stand.
 */
export function grantRuleRefusal(
  grant: ApprovalGrant,
  policy: ResolvedQuestionPolicy,
  requestedBy: string | undefined,
): string | undefined {
  const rule = twoPersonRuleOf(policy);
  if (rule.requiredApprovals > 1) {
    return `requiredApprovals: this call needs ${rule.requiredApprovals} approvals from distinct people, and a standing grant is one person's decision`;
  }
  if (rule.forbidSelfApproval && requestedBy !== undefined && samePerson(requestedBy, grant.grantedBy)) {
    return `forbidSelfApproval: ${grant.grantedBy} granted ${grant.id} and asked for this call, so the grant may not approve it`;
  }
  return undefined;
}

/**
 * Records the approval as the grant's when the question was started with one and the policy in force lets it
 * decide, and says whether it did: the question is then decided, and the workflow skips its start
 * (notifications) and its wait. A grant the rule keeps out is named in `grantNotUsed`, with the reason.
 *
 * @param workerPolicy the worker's policy for the agent, when the worker has one (`workerDefaultsFetch`)
 * @throws ApplicationFailure `INVALID_ARGS` naming the field, for a grant on questions or of the wrong shape
 */
export function approvedByGrant(
  input: AskUserQuestionWorkflowInput,
  question: QuestionState,
  workerPolicy: ResolvedQuestionPolicy | undefined,
  now: string,
): boolean {
  if (input.grant === undefined) return false;
  const grant = grantOf(input);
  const { record } = question;
  // The policy `applyWorkerPolicy` would put in force: the worker's beneath the question's own.
  const policy = mergePolicies(workerPolicy, question.effectivePolicy);
  const reason = grantRuleRefusal(grant, policy, input.approval?.requestedBy);
  if (reason !== undefined) {
    record.grantNotUsed = { id: grant.id, reason };
    return false;
  }
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
