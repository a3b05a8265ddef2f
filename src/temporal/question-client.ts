/**
 * `QuestionClient`: the ops side of durable questions — list, read, answer and decline them. The CLI (and,
 * later, the inbox) are thin shells over it. Listing and reading work from Temporal's visibility and history
 * alone, so they need no running worker.
 */
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, type Payload } from '@temporalio/common';
import { checkAnswer } from '../answer/answer-rules';
import { UserInteractionError } from '../interaction/user-interaction-error';
import type {
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  DeclineInput,
  QuestionOutcome,
  QuestionRecord,
  QuestionStatus,
  SubmitAnswerInput,
} from '../types';
import {
  ASK_USER_QUESTION_WORKFLOW_TYPE,
  FAILURE_TYPES,
  WORKFLOW_ID_PREFIX,
  answerSignal,
  declineUpdate,
  getQuestionQuery,
  submitAnswerUpdate,
  type QuestionMemo,
} from '../workflows/definitions';
import { resolvedReason } from '../workflows/question-text';

/** Why an ops operation on a question failed. */
export type QuestionOperationErrorCode = 'NOT_FOUND' | 'ALREADY_RESOLVED';

/** A question that does not exist, or is no longer open. `record` is set for `ALREADY_RESOLVED`. */
export class QuestionOperationError extends Error {
  readonly code: QuestionOperationErrorCode;
  readonly record?: QuestionRecord;

  constructor(code: QuestionOperationErrorCode, message: string, record?: QuestionRecord) {
    super(message);
    this.name = 'QuestionOperationError';
    this.code = code;
    if (record !== undefined) this.record = record;
  }
}

/** One line of a question list, from visibility (memo) alone. */
export interface QuestionSummary {
  workflowId: string;
  title: string;
  status: QuestionStatus;
  questionCount: number;
  askedAt: string;
  resolvedAt?: string;
  agentId?: string;
  sessionId?: string;
  toolCallId?: string;
}

/** Which questions `list` returns. */
export type QuestionListFilter = 'pending' | 'answered' | 'all';

/** Accepts a full workflow id or the key after `ask-user-question/`. */
export function toWorkflowId(id: string): string {
  return id.startsWith(WORKFLOW_ID_PREFIX) ? id : `${WORKFLOW_ID_PREFIX}${id}`;
}

function statusFromExecution(
  info: Pick<WorkflowExecutionInfo, 'status'>,
  memo: Partial<QuestionMemo>,
): QuestionStatus {
  switch (info.status.name) {
    case 'RUNNING':
      return 'pending';
    case 'COMPLETED':
      // The workflow records how it ended (answered, declined, expired) in its memo before completing.
      return memo.status === undefined || memo.status === 'pending' ? 'answered' : memo.status;
    case 'TIMED_OUT':
      return 'expired';
    default:
      // Cancelled, terminated, failed: the question was withdrawn and can no longer be answered.
      return 'cancelled';
  }
}

export function summaryOf(info: WorkflowExecutionInfo): QuestionSummary {
  const memo = (info.memo ?? {}) as Partial<QuestionMemo>;
  const summary: QuestionSummary = {
    workflowId: info.workflowId,
    title: memo.title ?? info.workflowId,
    status: statusFromExecution(info, memo),
    questionCount: memo.questionCount ?? 0,
    // The server's start time, as `get()` and the workflow's own record report it; the memo's `askedAt` is the
    // asking agent's clock, read just before its start request (and far off on a machine with a skewed clock).
    askedAt: info.startTime.toISOString(),
  };
  const resolvedAt = memo.resolvedAt ?? info.closeTime?.toISOString();
  if (summary.status !== 'pending' && resolvedAt !== undefined) summary.resolvedAt = resolvedAt;
  if (memo.agentId !== undefined) summary.agentId = memo.agentId;
  if (memo.sessionId !== undefined) summary.sessionId = memo.sessionId;
  if (memo.toolCallId !== undefined) summary.toolCallId = memo.toolCallId;
  return summary;
}

/** The message of an application failure raised by the workflow's validators, with its type. */
function validatorFailure(error: unknown): ApplicationFailure | undefined {
  if (!(error instanceof WorkflowUpdateFailedError)) return undefined;
  return error.cause instanceof ApplicationFailure ? error.cause : undefined;
}

function isCompletedError(error: unknown): boolean {
  return (
    error instanceof Error && /already completed|workflow execution already completed/i.test(error.message)
  );
}

/**
 * Lists, reads, answers and declines durable questions.
 *
 * @example
 * const questions = new QuestionClient(client);
 * for (const question of await questions.list('pending')) console.log(question.workflowId, question.title);
 * await questions.answer(id, { answers: [{ id: 'deploy', selected: ['Yes'] }], answeredBy: 'alice' });
 */
export class QuestionClient {
  private readonly callTimeoutMs: number;

  /**
   * @param options.callTimeoutMs Bound on each operation, so a half-up server or a missing worker (an answer
   *   is an update, which needs one) gives an error instead of a hang. Default 30 s.
   */
  constructor(
    private readonly client: Client,
    options: { callTimeoutMs?: number } = {},
  ) {
    this.callTimeoutMs = options.callTimeoutMs ?? 30_000;
  }

  /** Runs one operation within `callTimeoutMs`, saying what probably went wrong when it runs out. */
  private async bounded<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await this.client.withDeadline(Date.now() + this.callTimeoutMs, call);
    } catch (error) {
      const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
      const timedOut =
        error instanceof WorkflowUpdateRPCTimeoutOrCancelledError ||
        code === 4 || // gRPC DEADLINE_EXCEEDED
        (error instanceof Error && /DEADLINE_EXCEEDED/.test(error.message));
      if (timedOut) {
        const hint =
          operation === 'answer' || operation === 'decline'
            ? ' (is an ask-user worker running on this task queue?)'
            : '';
        throw new Error(`${operation} did not complete within ${this.callTimeoutMs / 1000}s${hint}`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  /** Questions newest first, from visibility: works with no worker running. */
  async list(filter: QuestionListFilter = 'pending', limit = 100): Promise<QuestionSummary[]> {
    return this.bounded('list', () => this.listUnbounded(filter, limit));
  }

  private async listUnbounded(filter: QuestionListFilter, limit: number): Promise<QuestionSummary[]> {
    const clauses = [`WorkflowType = '${ASK_USER_QUESTION_WORKFLOW_TYPE}'`];
    if (filter === 'pending') clauses.push(`ExecutionStatus = 'Running'`);
    if (filter === 'answered') clauses.push(`ExecutionStatus = 'Completed'`);
    const summaries: QuestionSummary[] = [];
    for await (const info of this.client.workflow.list({ query: clauses.join(' AND '), pageSize: limit })) {
      const summary = summaryOf(info);
      if (filter === 'answered' && summary.status !== 'answered') continue;
      summaries.push(summary);
      if (summaries.length >= limit) break;
    }
    return summaries;
  }

  /**
   * The full record of a question. Asks the workflow when a worker is up; otherwise rebuilds it from the
   * workflow's history, which the server alone can serve.
   */
  async get(id: string): Promise<QuestionRecord> {
    return this.bounded('show', () => this.getUnbounded(id));
  }

  private async getUnbounded(id: string): Promise<QuestionRecord> {
    const handle = this.client.workflow.getHandle(toWorkflowId(id));
    let description: Awaited<ReturnType<WorkflowHandle['describe']>>;
    try {
      description = await handle.describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw this.notFound(id);
      throw error;
    }
    if (description.type !== ASK_USER_QUESTION_WORKFLOW_TYPE) throw this.notFound(id);
    if (description.status.name === 'RUNNING') {
      try {
        return await this.client.withDeadline(Date.now() + 3_000, () => handle.query(getQuestionQuery));
      } catch {
        // No worker answers queries right now: fall back to history.
      }
    }
    return this.recordFromHistory(handle, description);
  }

  /**
   * Records an answer through the `submitAnswer` update: it is checked before anything is recorded.
   *
   * @throws UserInteractionError `BAD_ANSWER` with the reason; QuestionOperationError `NOT_FOUND` or
   *   `ALREADY_RESOLVED` (naming who answered and when).
   */
  async answer(id: string, input: SubmitAnswerInput): Promise<QuestionOutcome> {
    return this.bounded('answer', () =>
      this.update(id, async (handle) => handle.executeUpdate(submitAnswerUpdate, { args: [input] })),
    );
  }

  /** Declines a question: the agent's call fails with `ASK_CANCELLED` and the reason. */
  async decline(id: string, input: DeclineInput = {}): Promise<QuestionOutcome> {
    return this.bounded('decline', () =>
      this.update(id, async (handle) => handle.executeUpdate(declineUpdate, { args: [input] })),
    );
  }

  /**
   * Sends an answer as the fire-and-forget `answer` signal, as the stock Temporal CLI does. The answer is
   * checked here first, so an invalid one is refused instead of being silently ignored by the workflow.
   */
  async signalAnswer(id: string, input: SubmitAnswerInput): Promise<void> {
    const record = await this.get(id);
    if (record.status !== 'pending') throw this.alreadyResolved(record);
    const checked = checkAnswer(record.questions, input);
    if (!checked.ok) throw UserInteractionError.badAnswer(checked.reason, checked.rule);
    await this.client.workflow.getHandle(toWorkflowId(id)).signal(answerSignal, input);
  }

  private async update(
    id: string,
    send: (handle: WorkflowHandle) => Promise<QuestionOutcome>,
  ): Promise<QuestionOutcome> {
    const handle = this.client.workflow.getHandle(toWorkflowId(id));
    try {
      return await send(handle);
    } catch (error) {
      const failure = validatorFailure(error);
      if (failure?.type === FAILURE_TYPES.badAnswer) {
        const rule = typeof failure.details?.[0] === 'string' ? failure.details[0] : undefined;
        throw UserInteractionError.badAnswer(failure.message, rule);
      }
      // An update that races the workflow's completion can come back as "not found": `get()` tells a closed
      // question (ALREADY_RESOLVED, naming who and when) from a missing one (NOT_FOUND).
      if (
        failure?.type === FAILURE_TYPES.alreadyResolved ||
        isCompletedError(error) ||
        error instanceof WorkflowNotFoundError
      ) {
        const record = await this.get(id);
        if (record.status !== 'pending') throw this.alreadyResolved(record);
      }
      throw error;
    }
  }

  private notFound(id: string): QuestionOperationError {
    return new QuestionOperationError('NOT_FOUND', `no question with id ${JSON.stringify(toWorkflowId(id))}`);
  }

  private alreadyResolved(record: QuestionRecord): QuestionOperationError {
    return alreadyResolvedError(record);
  }

  /** Rebuilds the record from the start event's input and, once closed, the workflow's result. */
  private async recordFromHistory(
    handle: WorkflowHandle,
    description: Awaited<ReturnType<WorkflowHandle['describe']>>,
  ): Promise<QuestionRecord> {
    const history = await handle.fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const [input] = await this.decode<AskUserQuestionWorkflowInput>(started?.input?.payloads ?? []);
    if (input === undefined) throw this.notFound(handle.workflowId);
    const memo = (description.memo ?? {}) as Partial<QuestionMemo>;
    const record: QuestionRecord = {
      questions: input.questions,
      status: statusFromExecution(description, memo),
      askedAt: description.startTime.toISOString(),
      rejectedAnswers: [],
    };
    if (input.agent !== undefined) record.agent = input.agent;
    if (input.toolCallId !== undefined) record.toolCallId = input.toolCallId;
    const closedAt = description.closeTime?.toISOString();
    if (record.status !== 'pending' && closedAt !== undefined)
      record.resolvedAt = memo.resolvedAt ?? closedAt;
    if (description.status.name === 'COMPLETED') {
      const completed = history.events?.find((event) => event.workflowExecutionCompletedEventAttributes);
      const payloads = completed?.workflowExecutionCompletedEventAttributes?.result?.payloads ?? [];
      const [result] = await this.decode<AskUserQuestionWorkflowResult>(payloads);
      if (result !== undefined) applyResult(record, result);
    }
    return record;
  }

  private async decode<T>(payloads: Payload[]): Promise<(T | undefined)[]> {
    const converter = this.client.options.loadedDataConverter;
    let decoded = payloads;
    for (const codec of [...converter.payloadCodecs].reverse()) decoded = await codec.decode(decoded);
    return decoded.map((payload) => converter.payloadConverter.fromPayload<T>(payload));
  }
}

/** `ALREADY_RESOLVED`, naming who answered or declined and when. */
export function alreadyResolvedError(record: QuestionRecord): QuestionOperationError {
  const message = resolvedReason(record) ?? 'the question is still pending';
  return new QuestionOperationError('ALREADY_RESOLVED', message, record);
}

function applyResult(record: QuestionRecord, result: AskUserQuestionWorkflowResult): void {
  record.status = result.status;
  record.resolvedAt = result.resolvedAt;
  if (result.status === 'answered') {
    record.answer = result.answer;
    if (result.answeredBy !== undefined) record.answeredBy = result.answeredBy;
  }
  if (result.status === 'declined') {
    if (result.reason !== undefined) record.declineReason = result.reason;
    if (result.declinedBy !== undefined) record.declinedBy = result.declinedBy;
  }
}
