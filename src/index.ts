/**
 * `durable-ask-user`, the agent's package: the `ask_user_question` tool, the user-interaction seam and its
 * providers, and the names a stock Temporal CLI user needs. This list is the complete public surface: adding a
 * name here is an API decision (a test pins it). The worker factory is `@durable-ask-user/worker`'s, so an agent
 * that only asks installs no worker; the ops client is the entry `durable-ask-user/ops`, which the root does not
 * load.
 *
 * Agents that only need the tool import `durable-ask-user/tool` (no gRPC, no Temporal); workflow code imports
 * `durable-ask-user/workflow`.
 */
export {
  createAskUserQuestionTool,
  requireApproval,
  approvalKey,
  type ApprovableTool,
  type ApprovalRequiredTool,
  type ApprovedExecutionContext,
  type AskUserQuestionTool,
  type AskUserQuestionToolInput,
  type RequireApprovalOptions,
  type ToolExecutionContext,
} from './tool';
export {
  AskUserError,
  InMemoryUserInteraction,
  QuestionOperationError,
  type InMemoryPendingApproval,
  UserInteractionError,
  UserInteractionService,
  formatToolError,
  type InMemoryPendingQuestion,
  type QuestionOperationErrorCode,
  type UserInteractionErrorCode,
  type UserInteractionProvider,
} from './interaction';
export {
  checkAnswer,
  checkDecision,
  serializeAnswer,
  type AnswerCheck,
  type AnswerRule,
  type DecisionCheck,
  type DecisionRule,
} from './answer';

export {
  openAiTool,
  type OpenAiChatCompletionsTool,
  type OpenAiResponsesTool,
  type OpenAiTool,
  type OpenAiToolOptions,
} from './adapters/openai';
export { TemporalUserInteraction, type TemporalUserInteractionOptions } from './provider';
export type { ConnectOptions } from './connection';
export type { WebhookEvent } from './question/webhook-event';
export {
  ASK_USER_QUESTION_WORKFLOW_TYPE,
  DEFAULT_TASK_QUEUE,
  answerSignal,
  decideUpdate,
  declineUpdate,
  extendDeadlineUpdate,
  getQuestionQuery,
  submitAnswerUpdate,
  type QuestionMemo,
} from './question/definitions';
export { questionWorkflowId } from './question/workflow-id';
export type {
  ApprovalDecision,
  ApprovalDecisionType,
  ApprovalRequest,
  ApprovalSubject,
  AskUserAgent,
  AskUserQuestion,
  AskUserQuestionAnswer,
  AskUserQuestionAnswerItem,
  AskUserQuestionOption,
  AskUserQuestionRequest,
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  DeadlineChange,
  DecideInput,
  DeclineInput,
  JsonSchemaObject,
  ExpiryOutcome,
  ExtendDeadlineInput,
  PolicyDuration,
  QuestionAudience,
  QuestionOutcome,
  QuestionPolicies,
  QuestionPolicy,
  QuestionRecord,
  QuestionStatus,
  ResolvedQuestionPolicy,
  RejectedAnswer,
  SubmitAnswerInput,
  UserInteraction,
} from './types';
