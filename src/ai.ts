/**
 * `durable-ask-user/ai`: `ask_user_question` for the Vercel AI SDK (`ai` 6, an optional peer dependency), and
 * the OpenAI function tool entries.
 *
 * Tool-only: this entry loads the tool, the answer rules and `ai`, and no `@temporalio/*` or gRPC module. The
 * durable provider is passed in (`new TemporalUserInteraction()` from `durable-ask-user`), so an agent that
 * talks to a question service elsewhere, or uses the in-memory provider, never loads Temporal.
 */
export { askUserQuestionAiTool, type AskUserQuestionAiToolOptions } from './adapters/ai-sdk';
export { durableApprovalAiTool, type DurableApprovalAiToolOptions } from './adapters/ai-sdk-approval-tool';
export {
  resolveAiToolApprovals,
  type ResolveAiToolApprovalsOptions,
} from './adapters/ai-sdk-approval-messages';
export {
  aiToolApprovalPolicy,
  type AiToolApprovalPolicy,
  type AiToolApprovalPolicyOptions,
  type AiToolApprovalStatus,
} from './adapters/ai-sdk-approval-policy';
export { approvalStopped, type AiToolCall } from './adapters/ai-sdk-approval-flow';
export {
  openAiTool,
  toStrictJsonSchema,
  type JsonSchema,
  type OpenAiChatCompletionsTool,
  type OpenAiResponsesTool,
  type OpenAiTool,
  type OpenAiToolOptions,
} from './adapters/openai';
