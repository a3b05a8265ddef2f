/**
 * `durable-ask-user/workflow`: the workflow-safe entry point.
 *
 * Temporal runs workflow code in a deterministic sandbox where Node built-ins, the Temporal client and worker,
 * timers and `crypto` are off limits. Agents that are themselves workflows import from here, never from the
 * package root (which pulls in the Temporal client). The question workflow itself ships with the worker
 * (`@durable-ask-user/worker/workflows`): an agent's workflow asks through a child workflow by its type name.
 */
export {
  askUserQuestionAsChild,
  childWorkflowUserInteraction,
  type AskUserQuestionChildOptions,
} from './workflow-provider/ask-user-question-child';
export {
  ASK_USER_QUESTION_WORKFLOW_TYPE,
  DEFAULT_TASK_QUEUE,
  WORKFLOW_ID_PREFIX,
  answerSignal,
  decideUpdate,
  declineUpdate,
  extendDeadlineUpdate,
  getQuestionQuery,
  submitAnswerUpdate,
} from './question/definitions';
export { questionWorkflowId } from './question/workflow-id';
// Tools that run in workflow code take `childWorkflowUserInteraction()` as their provider.
export {
  createAskUserQuestionTool,
  type AskUserQuestionTool,
  type AskUserQuestionToolInput,
  type ToolExecutionContext,
} from './tool/ask-user-question-tool';
export {
  requireApproval,
  type ApprovableTool,
  type ApprovalRequiredTool,
  type ApprovedExecutionContext,
  type RequireApprovalOptions,
} from './tool/require-approval';
export { checkAnswer, serializeAnswer, type AnswerCheck, type AnswerRule } from './answer/answer-rules';
export { AskUserError } from './interaction/ask-user-error';
export { UserInteractionError, formatToolError } from './interaction/user-interaction-error';
export type * from './types';
