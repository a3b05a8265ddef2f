/**
 * Adapters of `ask_user_question` for the frameworks agents are built with: OpenAI function calling and MCP.
 * The AI SDK adapter is not listed here: `ai` is an optional peer dependency, so it has an entry of its own,
 * `durable-ask-user/ai`.
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
export {
  askUserQuestionMcpTool,
  askUserQuestionOutputJsonSchema,
  type McpToolDefinition,
} from './mcp-tool-definition';
export {
  DEFAULT_MCP_AGENT_ID,
  DEFAULT_PROGRESS_INTERVAL_MS,
  createAskUserMcpServer,
  mcpDurableKey,
  type AskUserMcpServerOptions,
  type McpDurableKey,
  type McpQuestionOperations,
} from './mcp-server';
export { serveMcpOverHttp, type McpHttpEndpoint, type McpHttpOptions } from './mcp-http';
