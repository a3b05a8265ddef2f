/**
 * The one way a question starts and finishes, shared by the durable provider (`TemporalUserInteraction`) and
 * the child-workflow helper (`askUserQuestionAsChild`): the request becomes a workflow id, an input, a memo, a
 * Web UI summary and details; the workflow's result or failure becomes an answer or a `UserInteractionError`.
 *
 * Workflow-safe: the child helper runs it inside the sandbox.
 */
import { CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { UserInteractionError, failureReason } from '../interaction/user-interaction-error';
import type {
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  QuestionPolicies,
} from '../types';
import type { QuestionMemo } from './definitions';
import { checkPoliciesOption, isEmptyPolicy, mergePolicies, policyFor } from './question-policy';
import { questionDetails, questionTitle } from './question-text';
import { questionsFingerprint } from './questions-fingerprint';
import { questionWorkflowId } from './workflow-id';

/** Operator settings that shape a question (never the model's). */
export interface QuestionSettings {
  /** Deadline after which the question expires (`ASK_EXPIRED`). Absent: wait forever. */
  timeoutMs?: number;
  /** Webhook URLs notified for this question, besides the worker's own. */
  webhookUrls?: string[];
  /**
   * The asker's policies, with overrides by agent id; resolved here for the request's agent. Its
   * `expireAfter` wins over `timeoutMs`.
   */
  policy?: QuestionPolicies;
  /**
   * `false`: take no webhook URLs or policy from the worker, even one that has them, and never run the local
   * activity that fetches them. Default true: the worker's apply, and a worker without any costs nothing.
   */
  workerDefaults?: boolean;
}

/** Everything a start request carries. */
export interface QuestionStart {
  workflowId: string;
  input: AskUserQuestionWorkflowInput;
  memo: QuestionMemo;
  staticSummary: string;
  staticDetails: string;
}

/**
 * Describes the start of a question.
 *
 * @param askedAt the asker's clock, ISO-8601 (the memo's `askedAt`; lists prefer the server's start time)
 * @param randomUUID the UUID source for a request without a tool call id (`uuid4` in workflow code)
 * @throws UserInteractionError `INVALID_ARGS` when the workflow id would be too long; `INVALID_OPTIONS` naming
 *   the field of a policy that is wrong
 */
export function questionStart(
  request: Omit<AskUserQuestionRequest, 'signal'>,
  settings: QuestionSettings,
  askedAt: string,
  randomUUID: () => string,
): QuestionStart {
  const workflowId = questionWorkflowId(request, randomUUID);
  const input: AskUserQuestionWorkflowInput = { questions: request.questions };
  if (request.agent !== undefined) input.agent = request.agent;
  if (request.toolCallId !== undefined) input.toolCallId = request.toolCallId;
  const policy = mergePolicies(
    settings.timeoutMs === undefined ? undefined : { expireAfterMs: settings.timeoutMs },
    settings.policy === undefined
      ? undefined
      : policyFor(checkPoliciesOption(settings.policy, 'question'), request.agent?.id),
  );
  if (!isEmptyPolicy(policy)) {
    input.policy = policy;
    // Also as `timeoutMs`, the field a worker that predates policies reads: it keeps the deadline (as an error).
    if (policy.expireAfterMs !== undefined) input.timeoutMs = policy.expireAfterMs;
  }
  if (settings.webhookUrls !== undefined) input.webhookUrls = settings.webhookUrls;
  input.workerDefaults = settings.workerDefaults === false ? false : 'if-configured';
  input.closingMemo = 'unless-answered';

  const title = questionTitle(request.questions);
  const memo: QuestionMemo = {
    title,
    questionCount: request.questions.length,
    status: 'pending',
    askedAt,
    fingerprint: questionsFingerprint(request.questions),
  };
  if (request.agent !== undefined) memo.agentId = request.agent.id;
  if (request.agent?.sessionId !== undefined) memo.sessionId = request.agent.sessionId;
  if (request.toolCallId !== undefined) memo.toolCallId = request.toolCallId;

  return {
    workflowId,
    input,
    memo,
    staticSummary: title,
    staticDetails: questionDetails(request.questions, workflowId),
  };
}

/** The answer of a completed question, or the error its outcome means for the asking agent. */
export function answerFromResult(result: AskUserQuestionWorkflowResult): AskUserQuestionAnswer {
  switch (result.status) {
    case 'answered':
      return result.answer;
    case 'declined':
      throw UserInteractionError.cancelled(result.reason);
    case 'expired':
      throw UserInteractionError.expired(result.after);
  }
}

/** The error for a question that closed without a result: cancelled, terminated, timed out or failed. */
export function errorFromClosedQuestion(cause: unknown, error: unknown): UserInteractionError {
  // Nobody declined: the question was withdrawn (an earlier abort of the same tool call, or an operator
  // cancelling or terminating it), so it can no longer be answered.
  if (cause instanceof CancelledFailure || cause instanceof TerminatedFailure)
    return UserInteractionError.aborted();
  if (cause instanceof TimeoutFailure)
    return UserInteractionError.unavailable('the question workflow timed out', error);
  return UserInteractionError.unavailable(
    `the question workflow failed: ${failureReason(cause ?? error)}`,
    error,
  );
}
