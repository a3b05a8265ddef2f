/**
 * `ask_user_question` as an MCP server, over any transport of the official SDK (`ask-user mcp` serves it on
 * stdio or streamable HTTP).
 *
 * It is built on the SDK's low-level `Server` rather than `McpServer` on purpose: the listing must carry the
 * tool's own JSON Schema byte for byte (the one measured against the token budget), and bad arguments must
 * reach the model as the contract's `Error: invalid arguments: <path>: <reason>`, not as the SDK's validation
 * text.
 *
 * Three things MCP makes hard, and how they are handled here:
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
 * durable key then gets a fresh tool call id, since the form must name its question.
 */
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type RequestMeta,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import { UserInteractionError, formatToolError, failureReason } from '../interaction/user-interaction-error';
import type { QuestionClient } from '../ops/question-client';
import {
  createAskUserQuestionTool,
  toAskUserQuestions,
  type AskUserQuestionTool,
  type ToolExecutionContext,
} from '../tool/ask-user-question-tool';
import { formatPath, parseAskUserQuestionArgs } from '../tool/parse-arguments';
import { questionWorkflowId } from '../question/workflow-id';
import type { AskUserAgent, AskUserQuestion, UserInteraction } from '../types';
import { elicitWhilePending, type McpElicitation, type McpElicitationOptions } from './mcp-elicitation';
import { askUserQuestionMcpTool, type McpToolDefinition } from './mcp-tool-definition';

/** The agent id questions asked over MCP are recorded under, unless told otherwise. */
export const DEFAULT_MCP_AGENT_ID = 'mcp';

/** How often a waiting call reports progress, unless told otherwise. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 5_000;

/** What the optional ops tools need: the list, read, answer and decide operations of `QuestionClient`. */
export type McpQuestionOperations = Pick<QuestionClient, 'list' | 'get' | 'answer' | 'decide'>;

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
   * MCP client. Off
   * unless given: an agent must not be offered tools that answer its own questions.
   */
  questions?: McpQuestionOperations;
  /**
   * Scope of progress-token keys on transports without sessions (stdio): one connection. Default: a fresh id
   * per server. Streamable HTTP uses its own session id.
   */
  sessionId?: string;
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

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Where the durable key of a call came from. */
export type McpDurableKey =
  | { source: 'toolCallId'; toolCallId: string }
  | { source: 'progressToken'; toolCallId: string; sessionId: string }
  | { source: 'none' };

/**
 * The durable key of a `tools/call`: `_meta.toolCallId` (a non-empty string), else the progress token scoped to
 * `sessionId`, else none (the question gets a fresh id).
 */
export function mcpDurableKey(meta: RequestMeta | undefined, sessionId: string): McpDurableKey {
  const toolCallId = meta?.toolCallId;
  if (typeof toolCallId === 'string' && toolCallId !== '') return { source: 'toolCallId', toolCallId };
  const token = meta?.progressToken;
  if (token !== undefined && token !== '') {
    return { source: 'progressToken', toolCallId: String(token), sessionId };
  }
  return { source: 'none' };
}

const listPendingInput = z.object({});

const answerQuestionInput = z.object({
  id: z.string().min(1, 'must not be empty').describe('Question id from list_pending_questions'),
  answers: z
    .array(
      z.object({
        id: z.string().describe('Id of the question item'),
        selected: z.array(z.string()).optional().describe('Chosen option labels'),
        custom: z.string().optional().describe('Free-form answer; overrides selected'),
      }),
    )
    .describe('One answer per question item, in order'),
  answered_by: z.string().optional().describe('Who answers'),
});

const decideApprovalInput = z.object({
  id: z.string().min(1, 'must not be empty').describe('Approval id from list_pending_questions'),
  decision: z
    .enum(['approve', 'edit', 'reject', 'respond'])
    .describe(
      'approve as asked; edit: approve with `input`; reject with an optional `reason`; respond with `text`',
    ),
  input: z.unknown().optional().describe('For edit: the input the tool runs with instead'),
  reason: z.string().optional().describe('For reject: why, in words the model reads'),
  text: z.string().optional().describe("For respond: what the model reads in place of the tool's result"),
  decided_by: z.string().optional().describe('Who decides'),
});

function jsonSchemaOf(schema: z.ZodType): McpToolDefinition['inputSchema'] {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input' });
  return json as McpToolDefinition['inputSchema'];
}

const OPS_TOOLS: McpToolDefinition[] = [
  {
    name: 'list_pending_questions',
    description:
      'List the questions agents are waiting on, with their items and options, newest first (at most 20).',
    inputSchema: jsonSchemaOf(listPendingInput),
  },
  {
    name: 'answer_question',
    description:
      'Answer a pending question: one item per question item, in order, with selected option labels or a custom text.',
    inputSchema: jsonSchemaOf(answerQuestionInput),
  },
  {
    name: 'decide_approval',
    description:
      'Decide a pending approval of a tool call: approve it, approve it with an edited input, reject it with a reason, or respond with a text the model reads instead.',
    inputSchema: jsonSchemaOf(decideApprovalInput),
  },
];

/** The names of the ops tools. */
const OPS_TOOL_NAMES = new Set(OPS_TOOLS.map((tool) => tool.name));

function textResult(text: string, isError = false): CallToolResult {
  return isError
    ? { content: [{ type: 'text', text }], isError: true }
    : { content: [{ type: 'text', text }] };
}

function errorResult(error: unknown): CallToolResult {
  return textResult(formatToolError(error), true);
}

/** The questions of valid arguments, or `undefined` (the tool then reports what is wrong; no form is shown). */
function askedQuestions(args: unknown): AskUserQuestion[] | undefined {
  try {
    return toAskUserQuestions(parseAskUserQuestionArgs(args));
  } catch {
    return undefined;
  }
}

/** Parses ops tool arguments, or explains the first problems as the tool does (`<path>: <reason>`). */
function parseOpsArguments<T extends z.ZodType>(schema: T, args: unknown): z.output<T> {
  const result = schema.safeParse(args ?? {});
  if (result.success) return result.data;
  throw UserInteractionError.invalidArgs(
    result.error.issues.slice(0, 5).map((issue) => {
      const path = formatPath(issue.path);
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    }),
  );
}

/**
 * Sends `notifications/progress` every `intervalMs` while a call waits, when the client asked for progress.
 * `progress` counts the notifications (it must increase); the message says how long the call has waited.
 */
function startProgress(extra: Extra, intervalMs: number): () => void {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return () => undefined;
  const startedAt = Date.now();
  let progress = 0;
  const timer = setInterval(() => {
    progress += 1;
    const waited = Math.round((Date.now() - startedAt) / 1000);
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, message: `waiting for the human to answer (${waited}s)` },
      })
      .catch(() => undefined); // a closed connection: the call is detached or cancelled already
  }, intervalMs);
  return () => clearInterval(timer);
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
  const agentId = options.agentId ?? DEFAULT_MCP_AGENT_ID;
  const keepOnCancel = options.keepOnCancel ?? false;
  const progressIntervalMs = options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  if (!(Number.isFinite(progressIntervalMs) && progressIntervalMs > 0)) {
    throw UserInteractionError.invalidSetting(
      'createAskUserMcpServer option progressIntervalMs: must be a positive number',
    );
  }
  const connectionSessionId = options.sessionId ?? randomUUID();
  const askTool: AskUserQuestionTool = createAskUserQuestionTool({
    userInteraction: options.userInteraction,
  });
  const tools = [askUserQuestionMcpTool(), ...(options.questions === undefined ? [] : OPS_TOOLS)];

  const log = options.log ?? ((): void => undefined);

  const server = new Server(options.serverInfo ?? { name: 'durable-ask-user', version: '0.0.0' }, {
    capabilities: { tools: {} },
  });
  // Among them, a reply to a form after it was withdrawn: the SDK drops it and reports it here.
  if (options.log !== undefined) server.onerror = (error) => log(`protocol: ${error.message}`);

  /** The form for this call, when the client shows forms and the question can be named. */
  function startForm(
    args: unknown,
    exec: ToolExecutionContext,
    extra: Extra,
    elicitation: McpElicitationOptions,
  ): McpElicitation | undefined {
    const questions = askedQuestions(args);
    if (questions === undefined || exec.toolCallId === undefined) return undefined;
    let workflowId: string;
    try {
      workflowId = questionWorkflowId(exec, randomUUID);
    } catch {
      return undefined; // an id past the server's limit: the provider refuses the question itself
    }
    const clientName = server.getClientVersion()?.name;
    return elicitWhilePending({
      server,
      workflowId,
      questions,
      operations: elicitation.questions,
      answeredBy: elicitation.answeredBy ?? (clientName === undefined ? 'mcp' : `mcp:${clientName}`),
      relatedRequestId: extra.requestId,
      log,
    });
  }

  async function askUserQuestion(args: unknown, extra: Extra): Promise<CallToolResult> {
    const key = mcpDurableKey(extra._meta, extra.sessionId ?? connectionSessionId);
    const agent: AskUserAgent =
      key.source === 'progressToken' ? { id: agentId, sessionId: key.sessionId } : { id: agentId };
    const exec: ToolExecutionContext = { agent };
    const { elicitation } = options;
    const showsForms =
      elicitation !== undefined && server.getClientCapabilities()?.elicitation?.form !== undefined;
    if (key.source !== 'none') exec.toolCallId = key.toolCallId;
    // Nothing can re-attach to it either way; the form needs an id to name the question by.
    else if (showsForms) exec.toolCallId = randomUUID();
    const cancel = new AbortController();
    if (!keepOnCancel) exec.signal = cancel.signal;

    // The SDK aborts `extra.signal` both for `notifications/cancelled` and when the connection closes, and only
    // then drops the transport, within the same synchronous step. A microtask later the two are told apart: a
    // closed connection detaches the call (the question stays pending), a cancel cancels it unless told not to.
    let detach: (result: CallToolResult) => void = () => undefined;
    const detached = new Promise<CallToolResult>((resolve) => (detach = resolve));
    let form: McpElicitation | undefined;
    const onAbort = (): void => {
      queueMicrotask(() => {
        form?.stop('the tool call was cancelled');
        if (server.transport !== undefined && !keepOnCancel) cancel.abort();
        else detach(errorResult(UserInteractionError.aborted()));
      });
    };
    extra.signal.addEventListener('abort', onAbort, { once: true });
    if (extra.signal.aborted) onAbort();
    const stopProgress = startProgress(extra, progressIntervalMs);
    // Why a form still open is withdrawn: the question resolved without it, or the call ended.
    let formEnd = 'the tool call ended';
    try {
      // A detached call keeps waiting in the background until the question closes; its result is dropped.
      const asked = askTool.execute(args, exec).then(
        (text): CallToolResult => ({
          content: [{ type: 'text', text }],
          structuredContent: JSON.parse(text) as Record<string, unknown>,
        }),
        errorResult,
      );
      if (showsForms && !extra.signal.aborted) form = startForm(args, exec, extra, elicitation);
      const result = await Promise.race([asked, detached]);
      formEnd =
        result.isError === true ? 'the question closed elsewhere' : 'the question was answered elsewhere';
      return result;
    } finally {
      // Before the result goes out (it is sent once this handler resolves): the client learns first that the
      // form is void.
      form?.stop(formEnd);
      stopProgress();
      extra.signal.removeEventListener('abort', onAbort);
    }
  }

  async function listPendingQuestions(
    questions: McpQuestionOperations,
    args: unknown,
  ): Promise<CallToolResult> {
    parseOpsArguments(listPendingInput, args);
    const pending = [];
    for (const summary of await questions.list('pending', 20)) {
      let record;
      try {
        record = await questions.get(summary.workflowId);
      } catch {
        continue; // resolved or gone between the list and the read
      }
      if (record.status !== 'pending') continue;
      pending.push({
        id: summary.workflowId,
        askedAt: record.askedAt,
        ...(record.agent === undefined ? {} : { agent: record.agent }),
        ...(record.approval === undefined
          ? { questions: record.questions }
          : { kind: 'approval', approval: record.approval }),
      });
    }
    return textResult(JSON.stringify({ pending }));
  }

  async function answerQuestion(questions: McpQuestionOperations, args: unknown): Promise<CallToolResult> {
    const input = parseOpsArguments(answerQuestionInput, args);
    const clientName = server.getClientVersion()?.name;
    const answeredBy = input.answered_by ?? (clientName === undefined ? 'mcp' : `mcp:${clientName}`);
    await questions.answer(input.id, {
      answers: input.answers.map((item) =>
        item.custom === undefined
          ? { id: item.id, selected: item.selected ?? [] }
          : { id: item.id, selected: item.selected ?? [], custom: item.custom },
      ),
      answeredBy,
    });
    return textResult(`Answered ${input.id} as ${answeredBy}.`);
  }

  async function decideApproval(questions: McpQuestionOperations, args: unknown): Promise<CallToolResult> {
    const input = parseOpsArguments(decideApprovalInput, args);
    const clientName = server.getClientVersion()?.name;
    const decidedBy = input.decided_by ?? (clientName === undefined ? 'mcp' : `mcp:${clientName}`);
    // Only the fields the arguments hold: the decision rules name any that do not belong to the decision.
    await questions.decide(input.id, {
      type: input.decision,
      ...(input.input === undefined ? {} : { input: input.input }),
      ...(input.reason === undefined ? {} : { reason: input.reason }),
      ...(input.text === undefined ? {} : { text: input.text }),
      decidedBy,
    });
    return textResult(`Decided ${input.id}: ${input.decision}, as ${decidedBy}.`);
  }

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    if (name === askTool.name) return askUserQuestion(args, extra);
    const { questions } = options;
    if (questions !== undefined && OPS_TOOL_NAMES.has(name)) {
      try {
        if (name === 'list_pending_questions') return await listPendingQuestions(questions, args);
        if (name === 'answer_question') return await answerQuestion(questions, args);
        return await decideApproval(questions, args);
      } catch (error) {
        return textResult(`Error: ${failureReason(error)}`, true);
      }
    }
    throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}`);
  });

  return server;
}
