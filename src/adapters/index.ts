/**
 * Adapters of `ask_user_question` for the frameworks agents are built with: OpenAI function calling here. The
 * AI SDK, OpenAI Agents and Claude adapters are not listed: their SDKs are optional peer dependencies, so each
 * has an entry of its own (`durable-ask-user/ai`, `/openai-agents`, `/claude`). MCP is a package of its own,
 * `@durable-ask-user/mcp`.
 */
export {
  openAiTool,
  toStrictJsonSchema,
  type JsonSchema,
  type OpenAiChatCompletionsTool,
  type OpenAiResponsesTool,
  type OpenAiTool,
  type OpenAiToolOptions,
} from './openai';
