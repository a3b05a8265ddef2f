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
 *   expired; `cancelled` once cancelled. The result and the error are the tool's own: the closed question is
 *   read through the tool again, which re-attaches to it and returns at once.
 * - `tasks/update`: the forms' responses become one answer, sent with the same validated update as every
 *   surface (`QuestionClient.answer`), so the first valid answer is recorded exactly once. A decline declines
 *   the question. A refused answer records nothing; its reason opens the next status and the next forms, which
 *   get new keys (a client answers a key once). Responses to keys the task does not show now are ignored.
 *   An answer no worker takes is recorded for one to validate (`awaitingWorker`): the task stays `working`,
 *   its status saying so, with no forms (the person answered); refused once a worker runs, its reason opens
 *   the next forms as above.
 * - `tasks/cancel`: cancels the question's workflow.
 *
 * The reason of a refused answer, and the answer waiting for a worker, are the only things kept in memory
 * (`McpRefusalNotes`): feedback for the person, not the task's state. Lost (a restart, another instance), the
 * question still waits and any surface can answer it; the client just shows no new form (an answer waiting
 * for a worker is still read from the question's history: `unvalidatedAnswers`).
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
import { inAudience } from '../answer/audience-rules';
import { formatToolError, UserInteractionError } from '../interaction/user-interaction-error';
import { QuestionOperationError } from '../interaction/question-operation-error';
import type { QuestionClient } from '../ops/question-client';
import { questionWorkflowId } from '../question/workflow-id';
import type { AnswerAwaitingWorker, QuestionRecord } from '../types';
import { answerResult, askedQuestions, executionContext, type McpAskContext } from './mcp-ask-tool';
import { startedRecord } from './mcp-elicitation';
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

/** What tasks need of the questions: read, answer, decline, and cancel (which `QuestionClient` leaves to Temporal). */
export type McpTaskOperations = Pick<QuestionClient, 'get' | 'answer' | 'decline'> & {
  /** Requests cancellation of the question's workflow. */
  cancel(workflowId: string): Promise<void>;
};

/** How many refusal notes are kept; the oldest go first. */
const MAX_NOTES = 1_000;

/** Why the last answer to a task was refused, how many were, and the answer that waits for a worker. */
export class McpRefusalNotes {
  private readonly notes = new Map<
    string,
    { attempt: number; note?: string; awaitingWorker?: AnswerAwaitingWorker }
  >();

  /** The attempt the task's forms are at (0 before any refusal), the last refusal's note, the answer waiting. */
  read(taskId: string): { attempt: number; note?: string; awaitingWorker?: AnswerAwaitingWorker } {
    return this.notes.get(taskId) ?? { attempt: 0 };
  }

  /** Records a refusal: the next forms are a new attempt, opened by `note`. */
  refuse(taskId: string, note: string): void {
    this.keep(taskId, { attempt: this.read(taskId).attempt + 1, note });
  }

  /** Records the task's answer as recorded but waiting for a worker to validate it. */
  awaitWorker(taskId: string, awaitingWorker: AnswerAwaitingWorker): void {
    const { attempt, note } = this.read(taskId);
    this.keep(taskId, { attempt, ...(note === undefined ? {} : { note }), awaitingWorker });
  }

  private keep(
    taskId: string,
    entry: { attempt: number; note?: string; awaitingWorker?: AnswerAwaitingWorker },
  ) {
    this.notes.delete(taskId);
    this.notes.set(taskId, entry);
    if (this.notes.size > MAX_NOTES) this.notes.delete(this.notes.keys().next().value!);
  }
}

/** What the task handlers share. */
export interface McpTaskContext {
  ask: McpAskContext;
  operations: McpTaskOperations;
  notes: McpRefusalNotes;
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
  const started = startedRecord(context.operations, workflowId, stop.signal);
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
 * The tool's own outcome for a question: its answer text, or its error. Re-attaching to the question returns at
 * once when it is closed; a pending one is waited for.
 */
export async function toolOutcome(
  context: McpTaskContext,
  record: QuestionRecord,
): Promise<{ text: string } | { error: unknown }> {
  const exec = { ...(record.agent === undefined ? {} : { agent: record.agent }) };
  try {
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
  record: QuestionRecord,
): Promise<Record<string, unknown>> {
  const outcome = await toolOutcome(context, record);
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
 * The status text of a pending question whose answer waits for a worker (this task's, or one recorded at any
 * surface while no worker ran), else `undefined`. This task's answer refused meanwhile becomes the next forms'
 * note instead.
 */
function awaitingWorkerMessage(context: McpTaskContext, taskId: string, record: QuestionRecord) {
  const { awaitingWorker: sent } = context.notes.read(taskId);
  const refused =
    sent === undefined
      ? undefined
      : record.rejectedAnswers.find((answer) => answer.answerId === sent.answerId);
  if (refused !== undefined) {
    context.notes.refuse(taskId, `Your answer was not recorded: ${refused.reason.replace(/\.$/, '')}.`);
    return undefined;
  }
  const taskQueue = sent?.taskQueue ?? record.noWorker?.taskQueue;
  if (taskQueue === undefined || (sent === undefined && (record.unvalidatedAnswers ?? []).length === 0)) {
    return undefined;
  }
  const whose = sent === undefined ? 'An answer' : `Your answer (answer ${sent.answerId})`;
  return `${whose} is recorded and waits for a worker on task queue ${taskQueue} to validate it.`;
}

/** `tasks/get`: the question's state as a task. */
async function getTask(context: McpTaskContext, taskId: string, ctx: McpRequestExtra): Promise<object> {
  const record = await questionOf(context, taskId);
  const fields = taskFields(taskId, record, context.pollIntervalMs);
  if (record.status === 'cancelled') return { ...fields, status: 'cancelled' };
  if (record.status !== 'pending') return { ...fields, ...(await closedStatus(context, record)) };
  // Not `input_required`: the person has answered, and new forms would ask them again.
  const waiting = awaitingWorkerMessage(context, taskId, record);
  if (waiting !== undefined) return { ...fields, status: 'working', statusMessage: waiting };
  const { attempt, note } = context.notes.read(taskId);
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
  const { attempt } = context.notes.read(taskId);
  const reply = replyFromForms(record.questions, attempt, params.inputResponses);
  const { log } = context.ask;
  try {
    if (reply.kind === 'decline') {
      await context.operations.decline(taskId, { declinedBy: answeredBy });
      log(`${taskId}: declined at the client as ${answeredBy}`);
    } else if (reply.kind === 'answer') {
      const { awaitingWorker } = await context.operations.answer(taskId, {
        answers: reply.answers,
        answeredBy,
      });
      if (awaitingWorker === undefined) {
        log(`${taskId}: answered at the client as ${answeredBy}`);
      } else {
        context.notes.awaitWorker(taskId, awaitingWorker);
        log(
          `${taskId}: answer ${awaitingWorker.answerId} recorded at the client as ${answeredBy}; it waits for a worker on task queue ${awaitingWorker.taskQueue} to validate it`,
        );
      }
    }
  } catch (error) {
    if (!(QuestionOperationError.isInstance(error) && error.code === 'BAD_ANSWER')) {
      // Resolved meanwhile (a second update, another surface): the task's next status says how.
      log(
        `${taskId}: the update was not recorded: ${error instanceof Error ? error.message : String(error)}`,
      );
      return {};
    }
    const reason = error.message.replace(/^ask_user_question received an invalid answer: /, '');
    context.notes.refuse(taskId, `Your answer was not recorded: ${reason}.`);
    log(`${taskId}: the answer was refused (${error.message})`);
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
