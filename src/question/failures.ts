/**
 * How the package's errors cross a workflow boundary: as a non-retryable `ApplicationFailure` whose `type` is
 * the error's code, so a client (or a parent workflow) reads the same code back. A plain `Error` thrown in
 * workflow code would instead fail the workflow task and retry it forever.
 *
 * Workflow-safe.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { QuestionOperationErrorCode } from '../interaction/question-operation-error';
import type { UserInteractionError, UserInteractionErrorCode } from '../interaction/user-interaction-error';

/** Failure types a question's validators raise: the codes of the errors clients turn them back into. */
export const BAD_ANSWER = 'BAD_ANSWER' satisfies UserInteractionErrorCode;
export const INVALID_ARGS = 'INVALID_ARGS' satisfies UserInteractionErrorCode;
export const ALREADY_RESOLVED = 'ALREADY_RESOLVED' satisfies QuestionOperationErrorCode;
/** An answerer outside the question's audience. */
export const FORBIDDEN = 'FORBIDDEN' satisfies QuestionOperationErrorCode;

/** The failure that carries a seam error out of a workflow (the child helper): type = code, full message. */
export function failureOf(error: UserInteractionError): ApplicationFailure {
  return ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: true });
}

/**
 * A validator's refusal. The message is the bare reason (what the stock Temporal CLI shows); a `BAD_ANSWER`
 * carries the broken rule as its only detail.
 */
export function refusal(
  type: typeof BAD_ANSWER | typeof INVALID_ARGS | typeof ALREADY_RESOLVED | typeof FORBIDDEN,
  reason: string,
  rule?: string,
): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message: reason,
    nonRetryable: true,
    ...(rule === undefined ? {} : { details: [rule] }),
  });
}
