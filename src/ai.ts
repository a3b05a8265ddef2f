/**
 * `durable-ask-user/ai`: `ask_user_question` for the Vercel AI SDK (`ai` 6, an optional peer dependency), and
 * the OpenAI function tool entries.
 *
 * Tool-only: this entry loads the tool, the answer rules and `ai`, and no `@temporalio/*` or gRPC module. The
 * durable provider is passed in (`new TemporalUserInteraction()` from `durable-ask-user`), so an agent that
 * talks to a question service elsewhere, or uses the in-memory provider, never loads Temporal.
 */
export { askUserQuestionAiTool, type AskUserQuestionAiToolOptions } from './adapters/ai-sdk';
export {
  aiToolApprovalPolicy,
  durableApprovalAiTool,
  resolveAiToolApprovals,
  type AiToolApprovalPolicy,
  type AiToolApprovalPolicyOptions,
  type AiToolApprovalStatus,
  type AiToolCall,
  type DurableApprovalAiToolOptions,
  type ResolveAiToolApprovalsOptions,
} from './adapters/ai-sdk-approval';
export {
  openAiTool,
  toStrictJsonSchema,
  type JsonSchema,
  type OpenAiChatCompletionsTool,
  type OpenAiResponsesTool,
  type OpenAiTool,
  type OpenAiToolOptions,
} from './adapters/openai';
