/**
 * The one way a question starts and finishes, shared by the durable provider (`TemporalUserInteraction`) and
 * the child-workflow helper (`askUserQuestionAsChild`): the request becomes a workflow id, an input, a memo, a
 * Web UI summary and details; the workflow's result or failure becomes an answer or a `UserInteractionError`.
 *
 * Workflow-safe: the child helper runs it inside the sandbox.
 */
import { CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { definedFields, errorText } from '../common';
import { requestedByProblem } from '../interaction/approval-request-guard';
import { UserInteractionError } from '../interaction/user-interaction-error';
import type {
  ApprovalDecision,
  ApprovalRequest,
  ApprovalSubject,
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  QuestionPolicies,
} from '../types';
import type { QuestionMemo } from './definitions';
import { checkPoliciesOption, isEmptyPolicy, mergePolicies, policyFor } from './question-policy';
import { approvalDetails, approvalTitle, questionDetails, questionTitle } from './question-text';
import { approvalFingerprint, questionsFingerprint } from './questions-fingerprint';
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
  /**
   * Who asks for the approvals started with these settings (the agent's owner), for a request that names
   * nobody itself: a policy's `forbidSelfApproval` keeps them from deciding.
   */
  requestedBy?: string;
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
 * @param randomUUID the UUID source for a request without a tool call id (`uuid4` in workflow code)
 * @throws UserInteractionError `INVALID_ARGS` when the workflow id would be too long; `INVALID_OPTIONS` naming
 *   the field of a policy that is wrong
 */
export function questionStart(
  request: Omit<AskUserQuestionRequest, 'signal'>,
  settings: QuestionSettings,
  randomUUID: () => string,
): QuestionStart {
  const title = questionTitle(request.questions);
  const start = startOf(
    request,
    { questions: request.questions },
    settings,
    {
      title,
      questionCount: request.questions.length,
      fingerprint: questionsFingerprint(request.questions),
    },
    randomUUID,
  );
  return {
    ...start,
    staticSummary: title,
    staticDetails: questionDetails(request.questions, start.workflowId),
  };
}

/**
 * Describes the start of an approval: the same workflow with no questions and the tool call as `approval`,
 * keyed by its tool call id like a question.
 *
 * @throws UserInteractionError as {@link questionStart}
 */
export function approvalStart(
  request: Omit<ApprovalRequest, 'signal'>,
  settings: QuestionSettings,
): QuestionStart {
  const { toolName, input, description, inputSchema, onEdit } = request;
  const requestedBy = request.requestedBy ?? settings.requestedBy;
  const requester = requestedByProblem(requestedBy);
  if (requester !== undefined) throw UserInteractionError.invalidArgs([`requestedBy: ${requester}`]);
  const approval: ApprovalSubject = {
    toolName,
    input,
    ...definedFields({ description, inputSchema, onEdit, requestedBy }),
  };
  const title = approvalTitle(approval);
  const start = startOf(
    request,
    { questions: [], approval },
    settings,
    {
      title,
      kind: 'approval',
      toolName,
      questionCount: 0,
      fingerprint: approvalFingerprint(approval),
    },
    () => request.toolCallId,
  );
  if (start.input.policy?.forbidSelfApproval === true && requestedBy === undefined) {
    // Without the requester's name the workflow could not keep them from approving their own call.
    throw UserInteractionError.invalidArgs([
      'requestedBy: the policy forbids self-approval (forbidSelfApproval), so the request must name who asks',
    ]);
  }
  return { ...start, staticSummary: title, staticDetails: approvalDetails(approval, start.workflowId) };
}

/** What a question and an approval start alike: the id, the operator's settings, the agent in the memo. */
function startOf(
  request: Pick<AskUserQuestionRequest, 'agent' | 'toolCallId'> & Pick<ApprovalRequest, 'audience'>,
  subject: Pick<AskUserQuestionWorkflowInput, 'questions' | 'approval'>,
  settings: QuestionSettings,
  memo: QuestionMemo,
  randomUUID: () => string,
): Omit<QuestionStart, 'staticSummary' | 'staticDetails'> {
  const workflowId = questionWorkflowId(request, randomUUID);
  const policy = mergePolicies(
    settings.timeoutMs === undefined ? undefined : { expireAfterMs: settings.timeoutMs },
    settings.policy === undefined
      ? undefined
      : policyFor(checkPoliciesOption(settings.policy, 'question'), request.agent?.id),
    // The request's own audience (an approval's, from the code wrapping the tool) is the most specific.
    request.audience === undefined ? undefined : { audience: request.audience },
  );
  const input: AskUserQuestionWorkflowInput = {
    ...subject,
    ...definedFields({
      agent: request.agent,
      toolCallId: request.toolCallId,
      policy: isEmptyPolicy(policy) ? undefined : policy,
      webhookUrls: settings.webhookUrls,
      workerDefaults: settings.workerDefaults === false ? (false as const) : undefined,
    }),
  };
  const startMemo: QuestionMemo = {
    ...memo,
    ...definedFields({
      audience: policy.audience,
      agentId: request.agent?.id,
      sessionId: request.agent?.sessionId,
      toolCallId: request.toolCallId,
    }),
  };
  return { workflowId, input, memo: startMemo };
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
    case 'decided':
      throw UserInteractionError.unavailable('the workflow is an approval, not a question');
  }
}

/** The decision of a completed approval. */
export function decisionFromResult(result: AskUserQuestionWorkflowResult): ApprovalDecision {
  if (result.status === 'decided') return result.decision;
  throw UserInteractionError.unavailable(`the approval ended ${result.status}, not decided`);
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
    `the question workflow failed: ${errorText(cause ?? error)}`,
    error,
  );
}
