/**
 * One AG-UI run of an AI SDK agent: the resume entries recorded, the tool calls the last run left open finished
 * (a question's tool re-attaches to its workflow and returns the answer recorded), then the agent streamed
 * until it ends or pauses on people, as AG-UI events.
 */
import { randomUUID } from 'node:crypto';
import { EventType, type BaseEvent, type Interrupt, type RunAgentInput } from '@ag-ui/core';
import type { ModelMessage, TextStreamPart, ToolSet } from 'ai';
import { errorText } from '../common';
import { AskUserError } from '../interaction/ask-user-error';
import type { QuestionClient, Answerer } from '../ops';
import { TemporalUserInteraction, type TemporalUserInteractionOptions } from '../provider';
import type { UserInteraction } from '../types';
import { interruptOf } from './interrupts';
import { openToolCalls, toModelMessages, toolContent, toolOutput, type OpenToolCall } from './messages';
import { applyResume, RunRefusal } from './resume';
import { RunInteraction, RunPauses } from './run-pauses';

/** What the helper runs: an AI SDK agent (`ToolLoopAgent`, or any `Agent` of `ai`). */
export interface AgUiAiAgent {
  readonly tools: ToolSet;
  stream(options: {
    messages: ModelMessage[];
    abortSignal?: AbortSignal;
  }): PromiseLike<{ fullStream: AsyncIterable<unknown> }>;
}

/** Options of {@link runAgUiAgent} and the endpoint. */
export interface AgUiAgentOptions {
  /** The ops client: reads the run's questions and records the resumes; its Temporal client asks them too. */
  questions: QuestionClient;
  /**
   * The agent's id: with the AG-UI thread as its session, it keys every question and approval
   * (`ask-user-question/<agentId>/<threadId>/<toolCallId>`), whatever agent the tools were built with.
   */
  agentId: string;
  /**
   * Builds the agent for one run, its tools over `userInteraction` (`askUserQuestionAiTool(userInteraction)`,
   * `durableApprovalAiTool(tool, { userInteraction, toolName })`).
   */
  createAgent: (userInteraction: UserInteraction, input: RunAgentInput) => AgUiAiAgent | Promise<AgUiAiAgent>;
  /** How questions are asked (task queue, deadline, policy): the options of `TemporalUserInteraction`. */
  interaction?: Omit<TemporalUserInteractionOptions, 'client'>;
}

/** Why a run failed, as its `RUN_ERROR` says. */
function runError(error: unknown): BaseEvent {
  const code = error instanceof RunRefusal || AskUserError.isInstance(error) ? error.code : 'RUN_FAILED';
  return { type: EventType.RUN_ERROR, message: errorText(error), code };
}

/** The final output of a tool's `execute`: the last value of a stream of outputs. */
async function finalOutput(result: unknown): Promise<unknown> {
  if (typeof result !== 'object' || result === null || !(Symbol.asyncIterator in result)) return await result;
  let last: unknown;
  for await (const output of result as AsyncIterable<unknown>) last = output;
  return last;
}

/** The tool that runs an open call, refused when none can run it here. */
function toolFor(tools: ToolSet, call: OpenToolCall): NonNullable<ToolSet[string]['execute']> {
  const tool = tools[call.toolName];
  if (tool?.execute === undefined) {
    throw new RunRefusal(
      'UNKNOWN_TOOL',
      `messages: tool call ${call.toolCallId} names ${call.toolName}, which the agent cannot run`,
    );
  }
  // The SDK's own approval stops the step and is answered in messages this helper does not carry: run it
  // again and the call would run unapproved. durableApprovalAiTool waits inside execute instead.
  if (tool.needsApproval !== undefined && tool.needsApproval !== false) {
    throw new RunRefusal(
      'UNSUPPORTED_TOOL',
      `messages: ${call.toolName} uses the AI SDK's needsApproval; wrap it with durableApprovalAiTool`,
    );
  }
  return tool.execute.bind(tool);
}

/**
 * Runs the calls the last run left open, at once: a question's tool returns the answer now recorded, or waits
 * again (and the run pauses again) when it has none yet. Yields the results of those that finished.
 */
async function* finishOpenCalls(
  open: readonly OpenToolCall[],
  tools: ToolSet,
  messages: ModelMessage[],
  pauses: RunPauses,
): AsyncGenerator<BaseEvent> {
  if (open.length === 0) return;
  const runs = open.map((call) => ({ call, execute: toolFor(tools, call) }));
  const results = new Map<string, unknown>();
  const all = Promise.all(
    runs.map(async ({ call, execute }) => {
      pauses.started(call.toolCallId);
      try {
        const output = await finalOutput(
          execute(call.input, { toolCallId: call.toolCallId, messages, abortSignal: pauses.signal }),
        );
        results.set(call.toolCallId, output);
      } catch (error) {
        if (!pauses.signal.aborted) results.set(call.toolCallId, `Error: ${errorText(error)}`);
      } finally {
        pauses.settled(call.toolCallId);
      }
    }),
  );
  await Promise.race([all, pauses.paused]);
  const parts = [];
  for (const { call } of runs) {
    if (!results.has(call.toolCallId)) continue;
    const output = results.get(call.toolCallId);
    parts.push({
      type: 'tool-result' as const,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: toolOutput(output),
    });
    yield {
      type: EventType.TOOL_CALL_RESULT,
      messageId: randomUUID(),
      toolCallId: call.toolCallId,
      content: toolContent(output),
      role: 'tool',
    };
  }
  if (parts.length > 0) messages.push({ role: 'tool', content: parts });
}

/** The AG-UI events of one part of the agent's stream; `text` holds the text messages still open. */
function eventsOf(part: TextStreamPart<ToolSet>, text: Map<string, string>, pauses: RunPauses): BaseEvent[] {
  switch (part.type) {
    case 'text-start': {
      const messageId = randomUUID();
      text.set(part.id, messageId);
      return [{ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' }];
    }
    case 'text-delta': {
      const messageId = text.get(part.id);
      if (messageId === undefined || part.text === '') return [];
      return [{ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: part.text }];
    }
    case 'text-end': {
      const messageId = text.get(part.id);
      text.delete(part.id);
      return messageId === undefined ? [] : [{ type: EventType.TEXT_MESSAGE_END, messageId }];
    }
    case 'tool-call': {
      pauses.started(part.toolCallId);
      const { toolCallId } = part;
      return [
        { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: part.toolName },
        { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(part.input ?? {}) },
        { type: EventType.TOOL_CALL_END, toolCallId },
      ];
    }
    case 'tool-result':
    case 'tool-error': {
      if (part.type === 'tool-result' && part.preliminary === true) return [];
      pauses.settled(part.toolCallId);
      const content =
        part.type === 'tool-result' ? toolContent(part.output) : `Error: ${errorText(part.error)}`;
      return [
        {
          type: EventType.TOOL_CALL_RESULT,
          messageId: randomUUID(),
          toolCallId: part.toolCallId,
          content,
          role: 'tool',
        },
      ];
    }
    case 'tool-approval-request':
      throw new RunRefusal(
        'UNSUPPORTED_TOOL',
        `${part.toolCall.toolName} uses the AI SDK's needsApproval; wrap it with durableApprovalAiTool`,
      );
    case 'error':
      throw part.error instanceof Error ? part.error : new Error(errorText(part.error));
    default:
      return [];
  }
}

/** Streams the agent from `messages` until it finishes or every tool call in flight waits for a person. */
async function* streamAgent(
  agent: AgUiAiAgent,
  messages: ModelMessage[],
  pauses: RunPauses,
): AsyncGenerator<BaseEvent> {
  const result = await agent.stream({ messages, abortSignal: pauses.signal });
  const iterator = result.fullStream[Symbol.asyncIterator]();
  const text = new Map<string, string>();
  const stopped = pauses.paused.then(() => undefined);
  for (;;) {
    const next = await Promise.race([iterator.next(), stopped]);
    if (next === undefined || next.done === true) break;
    yield* eventsOf(next.value as TextStreamPart<ToolSet>, text, pauses);
  }
  for (const messageId of text.values()) yield { type: EventType.TEXT_MESSAGE_END, messageId };
}

/**
 * The events of one AG-UI run of the agent: `RUN_STARTED`, the agent's messages and tool calls, then
 * `RUN_FINISHED` (with the interrupt outcome when it waits for people) or `RUN_ERROR`. Aborting `signal` (the
 * front end went away) ends it; the questions it asked stay pending.
 */
export async function* runAgUiAgent(
  input: RunAgentInput,
  options: AgUiAgentOptions & { answerer?: Answerer },
  signal?: AbortSignal,
): AsyncGenerator<BaseEvent> {
  const { threadId, runId } = input;
  yield { type: EventType.RUN_STARTED, threadId, runId };
  const { questions } = options;
  const agent = { id: options.agentId, sessionId: threadId };
  const inner = new TemporalUserInteraction({ ...options.interaction, client: questions.client });
  const pauses = new RunPauses();
  const stop = (): void => pauses.stop();
  signal?.addEventListener('abort', stop);
  try {
    const open = openToolCalls(input.messages);
    const built = await options.createAgent(new RunInteraction(inner, questions, agent, pauses), input);
    // Every open call must be one this agent can run here: refused before any resume entry is recorded.
    for (const call of open) toolFor(built.tools, call);
    await applyResume(input, open, { questions, agent, answerer: options.answerer ?? { name: 'ag-ui' } });
    const messages = toModelMessages(input.messages);
    yield* finishOpenCalls(open, built.tools, messages, pauses);
    if (!pauses.signal.aborted) yield* streamAgent(built, messages, pauses);
    if (signal?.aborted === true) return;
    const interrupts: Interrupt[] = pauses.calls.map((call) => interruptOf(call.workflowId, call.record));
    yield {
      type: EventType.RUN_FINISHED,
      threadId,
      runId,
      outcome: pauses.isPaused ? { type: 'interrupt', interrupts } : { type: 'success' },
    };
  } catch (error) {
    yield runError(error);
  } finally {
    signal?.removeEventListener('abort', stop);
    // Releases the waits the run paused on; their questions stay pending on the server.
    await inner.close();
  }
}
