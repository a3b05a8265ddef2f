/**
 * One `tools/call` of `ask_user_question` over MCP: its durable key, its cancellation, its progress and, at a
 * client that shows forms, its form (see the module comment of `mcp-server.ts` for why each is needed).
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult, RequestMeta, Server } from '@modelcontextprotocol/server';
import { UserInteractionError } from '../interaction/user-interaction-error';
import { questionWorkflowId } from '../question/workflow-id';
import {
  toAskUserQuestions,
  type AskUserQuestionTool,
  type ToolExecutionContext,
} from '../tool/ask-user-question-tool';
import { parseAskUserQuestionArgs } from '../tool/parse-arguments';
import type { AskUserQuestion } from '../types';
import { elicitWhilePending, type McpElicitation, type McpElicitationOptions } from './mcp-elicitation';
import { startProgress } from './mcp-progress';
import { answererAtClient, errorResult, type McpRequestExtra } from './mcp-tool-call';

/** What a call of the ask tool needs from its server and the server's options. */
export interface McpAskContext {
  server: Server;
  tool: AskUserQuestionTool;
  agentId: string;
  keepOnCancel: boolean;
  progressIntervalMs: number;
  /** Scope of progress-token keys on a transport without sessions of its own (stdio). */
  connectionSessionId: string;
  elicitation: McpElicitationOptions | undefined;
  log: (line: string) => void;
}

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

/** The form options when this server shows forms and the client declares form elicitation, else `undefined`. */
function formsAtClient(context: McpAskContext): McpElicitationOptions | undefined {
  const declared = context.server.getClientCapabilities()?.elicitation?.form !== undefined;
  return declared ? context.elicitation : undefined;
}

/** The tool's execution context: the agent, and the durable key as the tool call id. */
export function executionContext(
  context: McpAskContext,
  extra: McpRequestExtra,
  showsForms: boolean,
): ToolExecutionContext {
  const key = mcpDurableKey(extra.mcpReq._meta, extra.sessionId ?? context.connectionSessionId);
  const exec: ToolExecutionContext = {
    agent:
      key.source === 'progressToken'
        ? { id: context.agentId, sessionId: key.sessionId }
        : { id: context.agentId },
  };
  if (key.source !== 'none') exec.toolCallId = key.toolCallId;
  // Nothing can re-attach to it either way; the form needs an id to name the question by.
  else if (showsForms) exec.toolCallId = randomUUID();
  return exec;
}

/** What the call does when the client's request is aborted. */
interface AbortHandlers {
  /** Withdraws the call's form, if one is open. */
  stopForm(): void;
  /** Cancels the question. */
  cancelQuestion(): void;
}

/**
 * The SDK aborts the request's signal both for `notifications/cancelled` and when the connection closes, and only then
 * drops the transport, within the same synchronous step. A microtask later the two are told apart: a closed
 * connection detaches the call (the question stays pending), a cancel cancels it unless `keepOnCancel`.
 * `detached` settles with the result of a detached call; `dispose` stops watching.
 */
function watchAbort(
  context: McpAskContext,
  extra: McpRequestExtra,
  handlers: AbortHandlers,
): { detached: Promise<CallToolResult>; dispose(): void } {
  let detach: (result: CallToolResult) => void = () => undefined;
  const detached = new Promise<CallToolResult>((resolve) => (detach = resolve));
  const onAbort = (): void => {
    queueMicrotask(() => {
      handlers.stopForm();
      if (context.server.transport !== undefined && !context.keepOnCancel) handlers.cancelQuestion();
      else detach(errorResult(UserInteractionError.aborted()));
    });
  };
  const { signal } = extra.mcpReq;
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  return { detached, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** The questions of valid arguments, or `undefined` (the tool then reports what is wrong; no form is shown). */
export function askedQuestions(args: unknown): AskUserQuestion[] | undefined {
  try {
    return toAskUserQuestions(parseAskUserQuestionArgs(args));
  } catch {
    return undefined;
  }
}

/** The form for this call, when its arguments are valid and its question can be named. */
function startForm(
  context: McpAskContext,
  elicitation: McpElicitationOptions,
  call: { args: unknown; exec: ToolExecutionContext; extra: McpRequestExtra },
): McpElicitation | undefined {
  const questions = askedQuestions(call.args);
  if (questions === undefined || call.exec.toolCallId === undefined) return undefined;
  let workflowId: string;
  try {
    workflowId = questionWorkflowId(call.exec, randomUUID);
  } catch {
    return undefined; // an id past the server's limit: the provider refuses the question itself
  }
  return elicitWhilePending({
    server: context.server,
    workflowId,
    questions,
    operations: elicitation.questions,
    answeredBy: elicitation.answeredBy ?? answererAtClient(context.server),
    relatedRequestId: call.extra.mcpReq.id,
    log: context.log,
  });
}

/** The answer text, and the same object as `structuredContent` (the listing's output schema). */
export function answerResult(text: string): CallToolResult {
  return {
    content: [{ type: 'text', text }],
    structuredContent: JSON.parse(text) as Record<string, unknown>,
  };
}

/** Runs one `ask_user_question` call until the question closes, the call is cancelled or it is detached. */
export async function callAskUserQuestion(
  context: McpAskContext,
  args: unknown,
  extra: McpRequestExtra,
): Promise<CallToolResult> {
  const elicitation = formsAtClient(context);
  const exec = executionContext(context, extra, elicitation !== undefined);
  const cancel = new AbortController();
  if (!context.keepOnCancel) exec.signal = cancel.signal;
  let form: McpElicitation | undefined;
  const abort = watchAbort(context, extra, {
    stopForm: () => form?.stop('the tool call was cancelled'),
    cancelQuestion: () => cancel.abort(),
  });
  const stopProgress = startProgress(extra.mcpReq, context.progressIntervalMs);
  // Why a form still open is withdrawn: the question resolved without it, or the call ended.
  let formEnd = 'the tool call ended';
  try {
    // A detached call keeps waiting in the background until the question closes; its result is dropped.
    const asked = context.tool.execute(args, exec).then(answerResult, errorResult);
    if (elicitation !== undefined && !extra.mcpReq.signal.aborted) {
      form = startForm(context, elicitation, { args, exec, extra });
    }
    const result = await Promise.race([asked, abort.detached]);
    formEnd =
      result.isError === true ? 'the question closed elsewhere' : 'the question was answered elsewhere';
    return result;
  } finally {
    // Before the result goes out (it is sent once this handler resolves): the client learns first that the form
    // is void.
    form?.stop(formEnd);
    stopProgress();
    abort.dispose();
  }
}
