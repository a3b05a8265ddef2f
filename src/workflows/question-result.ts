/**
 * What a question's workflow returns once it closed: its decision, answer, decline or expiry, read from the
 * record. Pure.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { definedFields } from '../common';
import type { AskUserQuestionWorkflowResult, QuestionRecord } from '../types';

/**
 * The workflow's result for a closed `record`.
 *
 * @param now when the result is taken: the resolution time of a record that has none
 * @param expiredAfter the deadline counted from when the question was asked, in words (`30m`)
 */
export function workflowResult(
  record: QuestionRecord,
  now: string,
  expiredAfter: string,
): AskUserQuestionWorkflowResult {
  const { decision, status, answer, answeredBy, answerId, declineReason: reason, declinedBy } = record;
  const resolvedAt = record.resolvedAt ?? now;
  // Refusals of answers given an id (recorded while no worker ran): their senders read them after the close.
  const rejected = record.rejectedAnswers.filter((entry) => entry.answerId !== undefined);
  const refused = rejected.length === 0 ? {} : { rejectedAnswers: rejected };
  if (decision !== undefined) {
    // Under the two-person rule the approvals go with the decision, as does a grant not used and why: a closed
    // record is read from the result.
    const { approvals, requiredApprovals, rejections, requiredRejections, grantNotUsed } = record;
    const counted = definedFields({
      requiredApprovals,
      approvals,
      requiredRejections,
      rejections,
      grantNotUsed,
    });
    return { status: 'decided', decision, resolvedAt, ...counted, ...refused };
  }
  if (status === 'answered')
    return { status, answer: answer!, ...definedFields({ answeredBy, answerId }), resolvedAt, ...refused };
  if (status === 'declined')
    return { status, resolvedAt, ...definedFields({ reason, declinedBy }), ...refused };
  return { status: 'expired', resolvedAt, after: expiredAfter, ...refused };
}
