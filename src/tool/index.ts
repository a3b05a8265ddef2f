export {
  createAskUserQuestionTool,
  toAskUserQuestions,
  type AskUserQuestionTool,
  type AskUserQuestionToolInput,
  type ToolExecutionContext,
} from './ask-user-question-tool';
export {
  ASK_USER_QUESTION_DESCRIPTION,
  ASK_USER_QUESTION_TOOL_NAME,
  LIMITS,
  MAX_REQUEST_BYTES,
  askUserQuestionArgsSchema,
  askUserQuestionJsonSchema,
  type AskUserQuestionArgs,
} from './ask-user-question-schema';
export { parseAskUserQuestionArgs } from './parse-arguments';
export {
  approvalKey,
  rejectionText,
  requireApproval,
  type ApprovableTool,
  type ApprovalRequiredTool,
  type ApprovedExecutionContext,
  type RequireApprovalOptions,
} from './require-approval';
