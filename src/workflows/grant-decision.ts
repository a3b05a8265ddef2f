/**
 * An approval a standing grant covers: the provider checked coverage with the agent's grants workflow and
 * started the approval with the grant in its input, so the question records the call approved by the grant as
 * it starts (`decidedBy: "grant:<id>"`, the grant's id, granter and expiry in `decision.grant`) and ends, with
 * no person and no notification (the check counted the use). A grant it does not let decide is reported back
 * (`grantNotUsed`), which takes that use back.
 *
 * A grant is one person's decision, its granter's, so it decides only where that person's own decision would
 * stand under the policy in force (the question's own over the worker's): not under `requiredApprovals` above 1,
 * not under `forbidSelfApproval` when its granter is the call's requester, not outside the call's `audience`
 * (checked against the granter's name and groups as a decision's are). Nor does it decide a call already decided
 * (a decision taken while the worker's defaults were fetched), or once it expired (the approval's first task ran
 * after the expiry the provider's check saw ahead). Otherwise the approval opens for people as any other, and the
 * record says why the grant was not used (`grantNotUsed`).
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { CancellationScope, getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { isPlainObject } from '../common';
import type { ApprovalGrant, AskUserQuestionWorkflowInput, ResolvedQuestionPolicy } from '../types';
import { INVALID_ARGS, refusal } from '../question/failures';
import {
  GRANT_DECIDER_PREFIX,
  grantNotUsedSignal,
  grantsWorkflowIdOfGrant,
} from '../question/grant-definitions';
import { resolvedReason } from '../question/question-text';
import { answererGroups, audienceRefusal } from '../answer/audience-rules';
import { recordedDecision } from '../answer/decision-binding';
import { grantDecisionRefusal, samePerson, twoPersonRuleOf } from '../answer/two-person-rule';
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
  const groups = answererGroups({ groups: grant.grantedByGroups }, 'grant');
  if (!groups.ok) {
    throw refusal(
      INVALID_ARGS,
      `invalid arguments: ${groups.reason.replace(/^grant\.groups/, 'grant.grantedByGroups')}`,
    );
  }
  const { id, grantedBy, grantedAt, expiresAt } = grant as unknown as ApprovalGrant;
  const grantedByGroups = grant.grantedByGroups === undefined ? {} : { grantedByGroups: groups.groups };
  return { id, grantedBy, ...grantedByGroups, grantedAt, expiresAt };
}

/**
 * Why the rule in `policy` keeps `grant` from deciding a call `requestedBy` asked for, naming the policy field
 * (as the two-person rule's and the audience's refusals do), or `undefined` when one person's decision, the
 * granter's, may stand.
 */
export function grantRuleRefusal(
  grant: ApprovalGrant,
  policy: ResolvedQuestionPolicy,
  requestedBy: string | undefined,
): string | undefined {
  const twoPeople = grantDecisionRefusal(policy);
  if (twoPeople !== undefined) return twoPeople;
  const rule = twoPersonRuleOf(policy);
  if (rule.forbidSelfApproval && requestedBy !== undefined && samePerson(requestedBy, grant.grantedBy)) {
    return `forbidSelfApproval: ${grant.grantedBy} granted ${grant.id} and asked for this call, so the grant may not approve it`;
  }
  const outside = audienceRefusal(policy.audience, grant.grantedBy, grant.grantedByGroups ?? [], 'decide');
  if (outside !== undefined) {
    return `audience: ${outside}; ${grant.grantedBy} granted ${grant.id}, so the grant may not approve it`;
  }
  return undefined;
}

/** Why `grant` may not decide the question at `now` whatever the policy: decided already, or expired. */
function momentRefusal(grant: ApprovalGrant, question: QuestionState, now: string): string | undefined {
  const decided = resolvedReason(question.record);
  if (decided !== undefined) return `status: ${decided}, before the grant could approve it`;
  if (Date.parse(grant.expiresAt) <= Date.parse(now) || Number.isNaN(Date.parse(grant.expiresAt))) {
    return `expiresAt: ${grant.id} expired at ${grant.expiresAt}, before this approval's workflow could record it (at ${now})`;
  }
  return undefined;
}

/**
 * Records the approval as the grant's when the question was started with one and the grant may decide it now
 * (see the module's comment), and says whether it did: the question is then decided, and the workflow skips its
 * start (notifications) and its wait. A grant that may not is named in `grantNotUsed`, with the reason.
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
  const reason =
    momentRefusal(grant, question, now) ?? grantRuleRefusal(grant, policy, input.approval?.requestedBy);
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

/**
 * Tells the grant's workflow that this approval, started with the grant, did not let it decide (`grantNotUsed`),
 * which takes back the use its `coverCall` counted. The signal is awaited (the approval then waits for a person,
 * so it costs that path one round trip and the common path nothing) outside cancellation (a cancel arriving now
 * must not leave the use counted), and a failure is swallowed: a grants workflow that is gone (terminated, or a
 * grant given by hand naming none) has no count left to correct.
 */
export async function reportGrantNotUsed(grant: ApprovalGrant): Promise<void> {
  const grantsWorkflowId = grantsWorkflowIdOfGrant(grant.id);
  if (grantsWorkflowId === undefined) return;
  const use = { id: grant.id, workflowId: workflowInfo().workflowId, usedAt: new Date().toISOString() };
  await CancellationScope.nonCancellable(async () => {
    try {
      await getExternalWorkflowHandle(grantsWorkflowId).signal(grantNotUsedSignal, use);
    } catch {
      // The grants workflow is gone: nothing is left to correct.
    }
  });
}
