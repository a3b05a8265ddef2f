/**
 * `ask_user_question` as an MCP server, over any transport of the official SDK (`ask-user mcp` serves it on
 * stdio or streamable HTTP).
 *
 * It is built on the SDK's low-level `Server` rather than `McpServer` on purpose: the listing must carry the
 * tool's own JSON Schema byte for byte (the one measured against the token budget), and bad arguments must
 * reach the model as the tool's own `Error: invalid arguments: <path>: <reason>`, not as the SDK's validation
 * text.
 *
 * Three things MCP makes hard, and how a call of the ask tool handles them (`mcp-ask-tool.ts`):
 * - MCP has no tool call id. The durable key of a question is `_meta.toolCallId` when the client sends one,
 *   else the request's progress token (scoped to the MCP session, because SDK clients number their tokens
 *   from 0 on every connection), else a fresh id (the question cannot be re-attached then).
 * - Clients time requests out (60 s by default in the SDKs) and send `notifications/cancelled` when they do.
 *   While a question waits, the server sends a progress notification every few seconds when the client gave a
 *   progress token, so a client with `resetTimeoutOnProgress` keeps waiting.
 * - A cancel cancels the question, as an abort does for any agent (the workflow ends Canceled), unless
 *   `keepOnCancel` is set: the question then stays pending and a new call with the same key re-attaches to it.
 *   A connection that closes (a client that exits or restarts) never cancels: the question stays pending.
 *
 * With `elicitation`, a client that declares form elicitation also shows the person at it a form for each
 * question while ops may answer it too (see `mcp-elicitation.ts`); the first valid answer wins. A call without a
 * durable key then gets a fresh tool call id, since the form must name its question. The tools of a person who
 * answers from an MCP client, offered only with `questions`, are in `mcp-ops-tools.ts`.
 *
 * The same server serves both protocol eras, as the SDK's serving entries pin each instance to one: a 2025-11-25
 * client (an `initialize` handshake) gets all of the above; a 2026-07-28 client (version and capabilities in each
 * request's `_meta`) that declares the Tasks extension gets the question as a task (`mcp-tasks.ts`), with no
 * keys, progress or cancels to work around.
 */
import { randomUUID } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { UserInteractionError } from '../interaction/user-interaction-error';
import { createAskUserQuestionTool } from '../tool/ask-user-question-tool';
import type { UserInteraction } from '../types';
import { callAskUserQuestion, type McpAskContext } from './mcp-ask-tool';
import type { McpElicitationOptions } from './mcp-elicitation';
import { callOpsTool, opsToolDefinitions, type McpQuestionOperations } from './mcp-ops-tools';
import {
  TASKS_EXTENSION_ID,
  clientUsesTasks,
  registerTaskHandlers,
  startTask,
  type McpTaskContext,
  type McpTaskOperations,
} from './mcp-tasks';
import { callWithForms, roundTripCodec, type McpRoundTripContext } from './mcp-round-trip';
import { answererAtClient, clientShowsForms, isModernRequest, type McpRequestExtra } from './mcp-tool-call';
import { askUserQuestionMcpTool } from './mcp-tool-definition';

export { mcpDurableKey, type McpDurableKey } from './mcp-ask-tool';
export type { McpQuestionOperations } from './mcp-ops-tools';
export { TASKS_EXTENSION_ID, type McpTaskOperations } from './mcp-tasks';
export { DEFAULT_REQUEST_STATE_TTL_SECONDS } from './mcp-round-trip';

/** The agent id questions asked over MCP are recorded under, unless told otherwise. */
export const DEFAULT_MCP_AGENT_ID = 'mcp';

/** How often a waiting call reports progress, unless told otherwise. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 5_000;

/** Options of {@link createAskUserMcpServer}. */
export interface AskUserMcpServerOptions {
  /** Who collects the answers: `TemporalUserInteraction` for durable questions. */
  userInteraction: UserInteraction;
  /** Agent id the questions are recorded under. Default `mcp`. */
  agentId?: string;
  /** Leave the question pending when the client cancels the call (see the module comment). Default `false`. */
  keepOnCancel?: boolean;
  /** Milliseconds between progress notifications while a call waits. Default 5000. */
  progressIntervalMs?: number;
  /**
   * Adds `list_pending_questions`, `answer_question` and `decide_approval`, for a person who answers from an
   * MCP client. Off unless given: an agent must not be offered tools that answer its own questions.
   */
  questions?: McpQuestionOperations;
  /**
   * Scope of progress-token keys on transports without sessions (stdio): one connection. Default: a fresh id
   * per server. Streamable HTTP uses its own session id.
   */
  sessionId?: string;
  /**
   * Serves `ask_user_question` as a task to 2026-07-28 clients that declare the Tasks extension (see
   * `mcp-tasks.ts`): reads, answers, declines and cancels the questions. Off unless given.
   */
  tasks?: McpTaskOperations;
  /**
   * With `tasks` and `elicitation`: a 2026-07-28 client that shows forms and does not use tasks gets the forms
   * in a multi round-trip call, its `requestState` sealed with `key` (at least 32 bytes; the same for every
   * instance behind one endpoint) and valid for `ttlSeconds` (default 3600). See `mcp-round-trip.ts`.
   */
  requestState?: { key: string | Uint8Array; ttlSeconds?: number };
  /** Name and version the server reports. */
  serverInfo?: { name: string; version: string };
  /**
   * Also asks the person at a client that declares form elicitation, through `elicitation/create`, while the
   * question waits for ops (see `mcp-elicitation.ts`). Off unless given; `ask-user mcp` gives it unless
   * `--no-elicit`.
   */
  elicitation?: McpElicitationOptions;
  /** Where the server reports what its forms did and protocol errors (one line each). Default: nowhere. */
  log?: (line: string) => void;
}

/** `progressIntervalMs`, checked: a positive number of milliseconds. */
function progressInterval(options: AskUserMcpServerOptions): number {
  const intervalMs = options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  if (!(Number.isFinite(intervalMs) && intervalMs > 0)) {
    throw UserInteractionError.invalidSetting(
      'createAskUserMcpServer option progressIntervalMs: must be a positive number',
    );
  }
  return intervalMs;
}

/**
 * One call of the ask tool, in the form the client can take: a task (2026-07-28 with the Tasks extension), a
 * multi round-trip call with forms (2026-07-28 with forms), else a call that waits (with a form pushed to a
 * 2025-11-25 client that shows forms).
 */
async function callAskTool(
  modes: {
    ask: McpAskContext;
    tasks: McpTaskContext | undefined;
    roundTrip: McpRoundTripContext | undefined;
  },
  args: unknown,
  ctx: McpRequestExtra,
): Promise<CallToolResult> {
  const { ask, tasks, roundTrip } = modes;
  if (tasks !== undefined && clientUsesTasks(ask.server, ctx)) return await startTask(tasks, args, ctx);
  if (roundTrip !== undefined && isModernRequest(ctx) && clientShowsForms(ask.server, ctx)) {
    return await callWithForms(roundTrip, args, ctx);
  }
  return await callAskUserQuestion(ask, args, ctx);
}

/**
 * Creates an MCP server serving `ask_user_question` (and, with `questions`, the ops tools). Connect it to a
 * transport with `server.connect(transport)`; one server per connection.
 *
 * @example
 * const server = createAskUserMcpServer({ userInteraction: new TemporalUserInteraction() });
 * await server.connect(new StdioServerTransport());
 */
export function createAskUserMcpServer(options: AskUserMcpServerOptions): Server {
  const progressIntervalMs = progressInterval(options);
  const { log, questions } = options;
  const codec =
    options.requestState === undefined || options.tasks === undefined || options.elicitation === undefined
      ? undefined
      : roundTripCodec(options.requestState.key, options.requestState.ttlSeconds);
  const server = new Server(options.serverInfo ?? { name: 'durable-ask-user', version: '0.0.0' }, {
    capabilities: {
      tools: {},
      ...(options.tasks === undefined ? {} : { extensions: { [TASKS_EXTENSION_ID]: {} } }),
    },
    // The SDK checks an echoed state with this before the handler runs, and refuses it when it fails.
    ...(codec === undefined
      ? {}
      : { requestState: { verify: (state: string, ctx: ServerContext) => codec.verify(state, ctx) } }),
  });
  // Among them, a reply to a form after it was withdrawn: the SDK drops it and reports it here.
  if (log !== undefined) server.onerror = (error) => log(`protocol: ${error.message}`);
  const ask: McpAskContext = {
    server,
    tool: createAskUserQuestionTool({ userInteraction: options.userInteraction }),
    agentId: options.agentId ?? DEFAULT_MCP_AGENT_ID,
    keepOnCancel: options.keepOnCancel ?? false,
    progressIntervalMs,
    connectionSessionId: options.sessionId ?? randomUUID(),
    elicitation: options.elicitation,
    log: log ?? ((): void => undefined),
  };
  const tasks: McpTaskContext | undefined =
    options.tasks === undefined
      ? undefined
      : {
          ask,
          operations: options.tasks,
          pollIntervalMs: progressIntervalMs,
        };
  const roundTrip = tasks === undefined || codec === undefined ? undefined : { tasks, codec };
  const tools: Tool[] = [askUserQuestionMcpTool(), ...(questions === undefined ? [] : opsToolDefinitions)];

  server.setRequestHandler('tools/list', () => ({ tools }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    if (name === ask.tool.name) return await callAskTool({ ask, tasks, roundTrip }, args, ctx);
    const result =
      questions === undefined
        ? undefined
        : await callOpsTool(name, questions, args, answererAtClient(server, ctx));
    if (result !== undefined) return result;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}`);
  });
  if (tasks !== undefined) registerTaskHandlers(server, tasks);
  return server;
}
