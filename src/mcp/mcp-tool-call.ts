/**
 * What every `tools/call` handler of the MCP server shares: the request's context from the SDK, results as text,
 * and the name a person at the client is recorded under.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { formatToolError } from '../interaction/user-interaction-error';

/** What the SDK hands a request handler besides the request: its signal, `_meta`, session and notifier. */
export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A result holding one text. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A failure as the model reads it: `Error: <message>`, flagged `isError`. */
export function errorResult(error: unknown): CallToolResult {
  return { content: [{ type: 'text', text: formatToolError(error) }], isError: true };
}

/**
 * Who an answer or decision made at the client is recorded as, unless the person names themselves:
 * `mcp:<client name>`, or `mcp` when the client gave no name. Read per call: the name arrives with `initialize`.
 */
export function answererAtClient(server: Server): string {
  const clientName = server.getClientVersion()?.name;
  return clientName === undefined ? 'mcp' : `mcp:${clientName}`;
}
