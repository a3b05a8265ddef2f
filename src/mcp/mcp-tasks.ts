/**
 * A question as an MCP task (the Tasks extension, `io.modelcontextprotocol/tasks`, protocol 2026-07-28).
 *
 * A client that declares the extension gets a task from `tools/call` as soon as its question has started. The
 * task id is the question's workflow id, so the server keeps no task table: every `tasks/get`, `tasks/update`
 * and `tasks/cancel` reads or changes the question in Temporal, from any instance, before or after a restart.
 * A task id names only a question this server's agent asked (any other id is unknown, as a task of another
 * server would be).
 *
 * - `tasks/get`: `working` while the question waits; `input_required` with one form per question instead, when
 *   the client declares form elicitation and its person may answer (the forms of `mcp-task-forms.ts`);
 *   `completed` with the tool's result once answered; `failed` with the tool's error text once declined or
 *   expired; `cancelled` once cancelled. The result and the error are the tool's own, made from the closed
 *   question's workflow result as the tool makes them: a poll only reads, it never starts a workflow (as
 *   re-attaching through the tool would, to find the question closed).
 * - `tasks/update`: the forms' responses become one answer, sent with the same validated update as every
 *   surface (`QuestionClient.answer`), so the first valid answer is recorded exactly once. A decline declines
 *   the question. A refused answer records no answer; its reason opens the next status and the next forms,
 *   which get new keys (a client answers a key once). Responses to keys the task does not show now are ignored.
 *   An answer no worker takes is recorded for one to validate (`awaitingWorker`): the task stays `working`,
 *   its status saying so, with no forms (the person answered); refused once a worker runs, its reason opens
 *   the next forms as above.
 * - `tasks/cancel`: cancels the question's workflow.
 *
 * Nothing is kept in memory. The form attempt, the reason of a refused form answer and the form answer waiting
 * for a worker are read from the question's record (`mcp-form-answers.ts`): a form answer the update refuses is
 * then sent as the `answer` signal, which the workflow refuses by the same rules into `rejectedAnswers`, so every
 * instance, and one restarted, shows the reason.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type Server,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { checkAnswer, serializeAnswer } from '../answer/answer-rules';
import { inAudience } from '../answer/audience-rules';
import { formatToolError, UserInteractionError } from '../interaction/user-interaction-error';
import { QuestionOperationError } from '../interaction/question-operation-error';
import { startedRecord } from '../ops/started-record';
import type { QuestionClient } from '../ops/question-client';
import { answerFromResult } from '../question/question-start';
import { questionWorkflowId } from '../question/workflow-id';
import type { AskUserQuestionWorkflowResult, QuestionRecord, SubmitAnswerInput } from '../types';
import { answerResult, askedQuestions, executionContext, type McpAskContext } from './mcp-ask-tool';
import { formAnswerAwaitingWorker, formAnswerId, formAttempt } from './mcp-form-answers';
import { questionForms, replyFromForms } from './mcp-task-forms';
import {
  answererAtClient,
  clientCapabilities,
  clientShowsForms,
  errorResult,
  type McpRequestExtra,
} from './mcp-tool-call';

/** The extension's id, in the capabilities of both sides. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/**
 * What tasks need of the questions: read, answer, decline, and what `QuestionClient` leaves to Temporal: cancel,
 * a closed question's result, and a refused answer kept in the record.
 */
export type McpTaskOperations = Pick<QuestionClient, 'get' | 'answer' | 'decline'> & {
  /** Requests cancellation of the question's workflow. */
  cancel(workflowId: string): Promise<void>;
  /** The result of a question's workflow that completed, read without starting anything. */
  result(workflowId: string): Promise<AskUserQuestionWorkflowResult>;
  /**
   * Sends an answer the `submitAnswer` update refused as the `answer` signal, which the workflow cannot refuse to
   * its sender: it checks it by the same rules and keeps it in `rejectedAnswers`, under its `answerId`, with the
   * reason. (A refused update leaves nothing in the workflow's history.)
   */
  keepRefused(workflowId: string, answer: SubmitAnswerInput): Promise<void>;
};

/** What the task handlers share. */
export interface McpTaskContext {
  ask: McpAskContext;
  operations: McpTaskOperations;
  /** The `pollIntervalMs` every task suggests. */
  pollIntervalMs: number;
}

/** Whether this request's client declared the Tasks extension (2026-07-28 clients declare it per request). */
export function clientUsesTasks(server: Server, ctx: McpRequestExtra): boolean {
  return clientCapabilities(server, ctx)?.extensions?.[TASKS_EXTENSION_ID] !== undefined;
}

/** The fields every task carries. The ttl is `null`: no task expires while its question is kept. */
function taskFields(taskId: string, record: QuestionRecord, pollIntervalMs: number): Record<string, unknown> {
  return {
    taskId,
    createdAt: record.askedAt,
    lastUpdatedAt: record.resolvedAt ?? record.askedAt,
    ttlMs: null,
    pollIntervalMs,
  };
}

/** A started question: its workflow id and record, and the call's wait for its answer. */
export interface StartedQuestion {
  workflowId: string;
  record: QuestionRecord;
  /** Settles with the tool's result once the question closes. */
  asked: Promise<CallToolResult>;
}

/**
 * Starts the question of a `tools/call` (or re-attaches to it) and resolves once it has started. Arguments the
 * tool refuses, and a key that names another call's question, resolve with the tool's error result instead.
 * The call's wait goes on in the background until the question closes, as any ask's does.
 */
export async function startQuestion(
  context: McpTaskContext,
  args: unknown,
  ctx: McpRequestExtra,
): Promise<StartedQuestion | { result: CallToolResult }> {
  const exec = executionContext(context.ask, ctx, true);
  const questions = askedQuestions(args);
  const asked = context.ask.tool.execute(args, exec).then(answerResult, errorResult);
  let workflowId: string;
  try {
    workflowId = questionWorkflowId(exec, randomUUID);
  } catch {
    return { result: await asked }; // an id past the server's limit: the tool says so
  }
  const stop = new AbortController();
  const started = startedRecord((id) => context.operations.get(id), workflowId, stop.signal);
  const first = await Promise.race([
    asked.then((result) => ({ result })),
    started.then((record) => ({ record })),
  ]);
  stop.abort();
  if ('result' in first) return first;
  if (first.record === undefined || !isDeepStrictEqual(first.record.questions, questions)) {
    return { result: await asked };
  }
  return { workflowId, record: first.record, asked };
}

/** Starts the question of a `tools/call` and returns its task once it has started (see {@link startQuestion}). */
export async function startTask(
  context: McpTaskContext,
  args: unknown,
  ctx: McpRequestExtra,
): Promise<CallToolResult> {
  const started = await startQuestion(context, args, ctx);
  if ('result' in started) return started.result;
  const { workflowId, record } = started;
  const task = { ...taskFields(workflowId, record, context.pollIntervalMs), status: 'working' };
  // The SDK passes a tools/call result's `resultType` through; its type knows only tool results.
  return { resultType: 'task', ...task } as unknown as CallToolResult;
}

/** The record behind `taskId`, or the error an unknown task is. */
export async function questionOf(context: McpTaskContext, taskId: string): Promise<QuestionRecord> {
  let record: QuestionRecord;
  try {
    record = await context.operations.get(taskId);
  } catch (error) {
    if (QuestionOperationError.isInstance(error) && error.code === 'NOT_FOUND') {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown task ${JSON.stringify(taskId)}`);
    }
    throw error;
  }
  if (record.agent?.id !== context.ask.agentId || record.approval !== undefined) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown task ${JSON.stringify(taskId)}`);
  }
  return record;
}

/** Who answers through this client's forms, when it shows forms and its person may answer; else undefined. */
export function formAnswerer(
  context: McpTaskContext,
  record: QuestionRecord,
  ctx: McpRequestExtra,
): string | undefined {
  const { elicitation, server } = context.ask;
  if (elicitation === undefined || !clientShowsForms(server, ctx)) return undefined;
  const answeredBy = elicitation.answeredBy ?? answererAtClient(server, ctx);
  return inAudience(record.audience, answeredBy) ? answeredBy : undefined;
}

/**
 * The tool's own outcome for a question: its answer text, or its error. A closed question's is read from its
 * workflow's result (reads only); a pending one is waited for, re-attaching to it through the tool. A failure to
 * read a closed question's result is thrown, not an outcome: the question's outcome is still there to be read.
 */
export async function toolOutcome(
  context: McpTaskContext,
  workflowId: string,
  record: QuestionRecord,
): Promise<{ text: string } | { error: unknown }> {
  // Cancelled, terminated or failed: withdrawn, as the tool says of a question that closed without a result.
  if (record.status === 'cancelled') return { error: UserInteractionError.aborted() };
  if (record.status !== 'pending') {
    // Answered, declined or expired: the workflow completed with that result.
    const result = await context.operations.result(workflowId);
    try {
      // As the tool does with what its provider returns: the answer checked against the questions, then serialised.
      const checked = checkAnswer(record.questions, answerFromResult(result));
      if (!checked.ok) throw UserInteractionError.badAnswer(checked.reason, checked.rule);
      return { text: serializeAnswer(checked.answer) };
    } catch (error) {
      return { error };
    }
  }
  try {
    const exec = { ...(record.agent === undefined ? {} : { agent: record.agent }) };
    const text = await context.ask.tool.execute(
      { questions: record.questions },
      record.toolCallId === undefined ? exec : { ...exec, toolCallId: record.toolCallId },
    );
    return { text };
  } catch (error) {
    return { error };
  }
}

/** A closed question's outcome as a task's status: the tool's result, or its error text. */
async function closedStatus(
  context: McpTaskContext,
  taskId: string,
  record: QuestionRecord,
): Promise<Record<string, unknown>> {
  const outcome = await toolOutcome(context, taskId, record);
  if ('text' in outcome) {
    return { status: 'completed', result: { resultType: 'complete', ...answerResult(outcome.text) } };
  }
  const { error } = outcome;
  const code = UserInteractionError.isInstance(error) ? error.code : 'ASK_UNAVAILABLE';
  return {
    status: 'failed',
    error: { code: ProtocolErrorCode.InternalError, message: formatToolError(error), data: { code } },
  };
}

/**
 * The status text of a pending question with an answer that waits for a worker (this task's forms', or one
 * recorded at any surface while no worker ran), else `undefined`. Such answers are read from the history while no
 * worker runs the question; once one does, it takes them, or refuses them into `rejectedAnswers`.
 */
function awaitingWorkerMessage(record: QuestionRecord): string | undefined {
  const taskQueue = record.noWorker?.taskQueue;
  if (taskQueue === undefined || (record.unvalidatedAnswers ?? []).length === 0) return undefined;
  const own = formAnswerAwaitingWorker(record)?.answerId;
  const whose = own === undefined ? 'An answer' : `Your answer (answer ${own})`;
  return `${whose} is recorded and waits for a worker on task queue ${taskQueue} to validate it.`;
}

/** `tasks/get`: the question's state as a task. */
async function getTask(context: McpTaskContext, taskId: string, ctx: McpRequestExtra): Promise<object> {
  const record = await questionOf(context, taskId);
  const fields = taskFields(taskId, record, context.pollIntervalMs);
  if (record.status === 'cancelled') return { ...fields, status: 'cancelled' };
  if (record.status !== 'pending') return { ...fields, ...(await closedStatus(context, taskId, record)) };
  // Not `input_required`: the person has answered, and new forms would ask them again.
  const waiting = awaitingWorkerMessage(record);
  if (waiting !== undefined) return { ...fields, status: 'working', statusMessage: waiting };
  const { attempt, note } = formAttempt(record);
  const statusMessage = note ?? 'waiting for the human to answer';
  if (formAnswerer(context, record, ctx) === undefined)
    return { ...fields, status: 'working', statusMessage };
  return {
    ...fields,
    status: 'input_required',
    statusMessage,
    inputRequests: questionForms(record.questions, attempt, note),
  };
}

/** Records the person's answer from the forms of `attempt`; a refused one is kept in the record (see above). */
async function answerFromForms(
  context: McpTaskContext,
  taskId: string,
  answer: SubmitAnswerInput,
): Promise<void> {
  const { log } = context.ask;
  try {
    const { awaitingWorker } = await context.operations.answer(taskId, answer);
    log(
      awaitingWorker === undefined
        ? `${taskId}: answered at the client as ${answer.answeredBy}`
        : `${taskId}: answer ${awaitingWorker.answerId} recorded at the client as ${answer.answeredBy}; it waits for a worker on task queue ${awaitingWorker.taskQueue} to validate it`,
    );
  } catch (error) {
    if (!(QuestionOperationError.isInstance(error) && error.code === 'BAD_ANSWER')) throw error;
    // The refused update left nothing in Temporal: the signal puts the refusal, with its reason, in the record.
    await context.operations.keepRefused(taskId, answer);
    log(`${taskId}: the answer ${answer.answerId} was refused (${error.message})`);
  }
}

/** `tasks/update`: records what the person did with the current forms (see the module comment). */
async function updateTask(
  context: McpTaskContext,
  params: { taskId: string; inputResponses: Record<string, unknown> },
  ctx: McpRequestExtra,
): Promise<object> {
  const { taskId } = params;
  const record = await questionOf(context, taskId);
  const answeredBy = formAnswerer(context, record, ctx);
  if (record.status !== 'pending' || answeredBy === undefined) return {};
  const { attempt } = formAttempt(record);
  const reply = replyFromForms(record.questions, attempt, params.inputResponses);
  try {
    if (reply.kind === 'decline') {
      await context.operations.decline(taskId, { declinedBy: answeredBy });
      context.ask.log(`${taskId}: declined at the client as ${answeredBy}`);
    } else if (reply.kind === 'answer') {
      const answerId = formAnswerId(attempt, randomUUID());
      await answerFromForms(context, taskId, { answers: reply.answers, answeredBy, answerId });
    }
  } catch (error) {
    // Resolved meanwhile (a second update, another surface): the task's next status says how.
    context.ask.log(
      `${taskId}: the update was not recorded: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return {};
}

/** `tasks/cancel`: cancels the question's workflow. */
async function cancelTask(context: McpTaskContext, taskId: string): Promise<object> {
  const record = await questionOf(context, taskId);
  if (record.status === 'pending') await context.operations.cancel(taskId);
  return {};
}

const taskIdParams = z.looseObject({ taskId: z.string() });
const anyResult = z.looseObject({});

/**
 * Registers `tasks/get`, `tasks/update` and `tasks/cancel`. The SDK serves the Tasks extension's methods on the
 * 2026-07-28 era only when they are registered with their own schemas, as here.
 */
export function registerTaskHandlers(server: Server, context: McpTaskContext): void {
  const schemas = { params: taskIdParams, result: anyResult };
  server.setRequestHandler('tasks/get', schemas, async (params, ctx) => ({
    resultType: 'complete',
    ...(await getTask(context, params.taskId, ctx)),
  }));
  // The SDK lifts `inputResponses` out of every request's params (as for a retried tools/call) into the context.
  server.setRequestHandler('tasks/update', schemas, async (params, ctx) => ({
    resultType: 'complete',
    ...(await updateTask(
      context,
      { taskId: params.taskId, inputResponses: ctx.mcpReq.inputResponses ?? {} },
      ctx,
    )),
  }));
  server.setRequestHandler('tasks/cancel', schemas, async (params) => ({
    resultType: 'complete',
    ...(await cancelTask(context, params.taskId)),
  }));
}
