/**
 * `durable-ask-user/tool`: the model-facing tool and the user-interaction seam, without the Temporal parts.
 *
 * For agents that bring their own provider (or use the in-memory one) and for runtimes where gRPC and the
 * Temporal SDK cannot or should not load: nothing imported from here reaches `@grpc/*` or any `@temporalio/*`
 * package, which a test checks by listing what `require` loaded. The durable provider, the worker and the ops
 * client are in the package root.
 *
 * @example
 * import { InMemoryUserInteraction, createAskUserQuestionTool } from 'durable-ask-user/tool';
 * const tool = createAskUserQuestionTool({ userInteraction: new InMemoryUserInteraction() });
 */
export {
  createAskUserQuestionTool,
  type AskUserQuestionTool,
  type AskUserQuestionToolInput,
  type ToolExecutionContext,
} from './tool/ask-user-question-tool';
export {
  ASK_USER_QUESTION_DESCRIPTION,
  ASK_USER_QUESTION_TOOL_NAME,
  LIMITS,
  MAX_REQUEST_BYTES,
  askUserQuestionArgsSchema,
  askUserQuestionJsonSchema,
  type AskUserQuestionArgs,
} from './tool/ask-user-question-schema';
export { AskUserError } from './interaction/ask-user-error';
export {
  UserInteractionError,
  formatToolError,
  type UserInteractionErrorCode,
} from './interaction/user-interaction-error';
export { UserInteractionService, type UserInteractionProvider } from './interaction/user-interaction-service';
export {
  InMemoryUserInteraction,
  type InMemoryPendingApproval,
  type InMemoryPendingQuestion,
} from './interaction/in-memory-user-interaction';
export {
  approvalKey,
  rejectionText,
  requireApproval,
  type ApprovableTool,
  type ApprovalRequiredTool,
  type ApprovedExecutionContext,
  type RequireApprovalOptions,
} from './tool/require-approval';
export {
  DECISION_TYPES,
  checkDecision,
  type DecisionCheck,
  type DecisionRule,
} from './answer/decision-rules';
export {
  MAX_ANSWER_BYTES,
  MAX_CUSTOM_LENGTH,
  checkAnswer,
  serializeAnswer,
  type AnswerCheck,
  type AnswerRule,
} from './answer/answer-rules';
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
  DecideInput,
  JsonSchemaObject,
  UserInteraction,
} from './types';
