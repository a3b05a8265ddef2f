/**
 * What every `tools/call` handler of the MCP server shares: the request's context from the SDK, results as text,
 * and the name a person at the client is recorded under.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { formatToolError } from '../interaction/user-interaction-error';

/** What the SDK hands a request handler besides the request: its signal, `_meta`, session and notifier. */
export type McpRequestExtra = ServerContext;

/** A result holding one text. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A failure as the model reads it: `Error: <message>`, flagged `isError`. */
export function errorResult(error: unknown): CallToolResult {
  return { content: [{ type: 'text', text: formatToolError(error) }], isError: true };
}

/** One key of the request's 2026-07-28 `_meta` envelope (the SDK types the envelope as an open object). */
function envelopeValue(ctx: McpRequestExtra | undefined, key: string): unknown {
  return (ctx?.mcpReq.envelope as Record<string, unknown> | undefined)?.[key];
}

/**
 * What the client declared it can do: at `initialize` (2025-11-25), else in the request's own `_meta`
 * (2026-07-28, where every request carries it).
 */
export function clientCapabilities(server: Server, ctx?: McpRequestExtra): ClientCapabilities | undefined {
  return (
    server.getClientCapabilities() ??
    (envelopeValue(ctx, CLIENT_CAPABILITIES_META_KEY) as ClientCapabilities | undefined)
  );
}

/** Whether the request is of the stateless era (2026-07-28): it carries its protocol version in `_meta`. */
export function isModernRequest(ctx: McpRequestExtra): boolean {
  return envelopeValue(ctx, PROTOCOL_VERSION_META_KEY) !== undefined;
}

/** Whether the client shows forms: it declares form elicitation (a bare `elicitation: {}` means forms too). */
export function clientShowsForms(server: Server, ctx?: McpRequestExtra): boolean {
  const declared = clientCapabilities(server, ctx)?.elicitation;
  return declared !== undefined && (declared.form !== undefined || declared.url === undefined);
}

/** The client's name: from `initialize` (2025-11-25), else from the request's own `_meta` (2026-07-28). */
function clientName(server: Server, ctx: McpRequestExtra | undefined): string | undefined {
  const name =
    server.getClientVersion()?.name ??
    (envelopeValue(ctx, CLIENT_INFO_META_KEY) as Partial<Implementation> | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * Who an answer or decision made at the client is recorded as, unless the person names themselves:
 * `mcp:<client name>`, or `mcp` when the client gave no name. Read per call: the name arrives with `initialize`
 * or, in the stateless era, with each request.
 */
export function answererAtClient(server: Server, ctx?: McpRequestExtra): string {
  const name = clientName(server, ctx);
  return name === undefined ? 'mcp' : `mcp:${name}`;
}
