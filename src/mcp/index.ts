/**
 * `@durable-ask-user/mcp`: `ask_user_question` served over MCP (stdio or streamable HTTP), with progress while
 * a question waits, elicitation for the person at the client, and the ops tools.
 */
export {
  askUserQuestionMcpTool,
  askUserQuestionOutputJsonSchema,
  type McpToolDefinition,
} from './mcp-tool-definition';
export {
  DEFAULT_MCP_AGENT_ID,
  DEFAULT_PROGRESS_INTERVAL_MS,
  TASKS_EXTENSION_ID,
  createAskUserMcpServer,
  mcpDurableKey,
  type AskUserMcpServerOptions,
  type McpDurableKey,
  type McpQuestionOperations,
  type McpTaskOperations,
} from './mcp-server';
export { serveMcpOverHttp, type McpHttpEndpoint, type McpHttpOptions } from './mcp-http';
export { connectMcpOverStdio, type McpStdioConnection } from './mcp-stdio';
export type { McpElicitationOperations } from './mcp-elicitation';
