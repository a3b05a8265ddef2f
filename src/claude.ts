/**
 * `durable-ask-user/claude`: the Claude Agent SDK's `canUseTool` callback over a user-interaction provider.
 * `AskUserQuestion` becomes a durable question, every other tool a durable approval.
 *
 * Dependency-free: the callback's types are structural (a test checks them against the SDK's own
 * `CanUseTool`), so neither `@anthropic-ai/claude-agent-sdk` nor any `@temporalio/*` module is loaded. The
 * durable provider is passed in.
 */
export {
  claudeCanUseTool,
  type ClaudeAskUserQuestionInput,
  type ClaudeCanUseTool,
  type ClaudeCanUseToolContext,
  type ClaudeCanUseToolOptions,
  type ClaudePermissionResult,
} from './adapters/claude-agent-sdk';
