/**
 * An answer that no worker takes: recorded durably anyway, as the `answer` signal (the server keeps a signal with
 * no worker running; it admits an update only while one polls), carrying the answer's `answerId`. The question's
 * workflow takes it, or refuses it into `rejectedAnswers` under that id, when a worker next runs; the same answer
 * sent first as an update that a returning worker takes is recorded once (see `QuestionState.receiveSignal`).
 */
import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { checkAnswer } from '../answer/answer-rules';
import { audienceRefusal } from '../answer/audience-rules';
import { grpcCode, isClosedWorkflowError } from '../connection/grpc-failures';
import { GrpcStatus } from '../connection/grpc-status';
import { QuestionOperationError } from '../interaction/question-operation-error';
import { ASK_USER_QUESTION_WORKFLOW_TYPE, answerSignal } from '../question/definitions';
import { resolvedReason } from '../question/question-text';
import type { QuestionOutcome, QuestionRecord, SubmitAnswerInput } from '../types';
import { recordFromHistory, type Description } from './question-history';

/**
 * The server's description of the question `handle` names.
 *
 * @throws QuestionOperationError `NOT_FOUND` when no workflow has that id, or one that is not a question
 */
export async function describeQuestion(handle: WorkflowHandle): Promise<Description> {
  let description: Description;
  try {
    description = await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw QuestionOperationError.notFound(handle.workflowId);
    throw error;
  }
  if (description.type !== ASK_USER_QUESTION_WORKFLOW_TYPE) {
    throw QuestionOperationError.notFound(handle.workflowId);
  }
  return description;
}

/** What sending an update to a question needs to know first: whether it runs, and which workers can take it. */
export interface QuestionLook {
  running: boolean;
  taskQueue: string;
}

/**
 * Whether the question runs and on which task queue, from the raw describe call: decoding the memo and search
 * attributes, as {@link describeQuestion} does, costs the caller a third more CPU for fields only a closed
 * question's refusal reads (which then describes it again).
 *
 * @throws QuestionOperationError `NOT_FOUND` when no workflow has that id, or one that is not a question
 */
export async function lookAtQuestion(client: Client, workflowId: string): Promise<QuestionLook> {
  let info;
  try {
    ({ workflowExecutionInfo: info } = await client.workflowService.describeWorkflowExecution({
      namespace: client.options.namespace,
      execution: { workflowId },
    }));
  } catch (error) {
    if (grpcCode(error) === GrpcStatus.NOT_FOUND) throw QuestionOperationError.notFound(workflowId);
    throw error;
  }
  const taskQueue = info?.taskQueue;
  if (info?.type?.name !== ASK_USER_QUESTION_WORKFLOW_TYPE || !taskQueue) {
    throw QuestionOperationError.notFound(workflowId);
  }
  const running =
    info.status === temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  return { running, taskQueue };
}

/** `ALREADY_RESOLVED`, naming who answered or declined and when. */
export function alreadyResolvedError(record: QuestionRecord): QuestionOperationError {
  return QuestionOperationError.alreadyResolved(
    resolvedReason(record) ?? 'the question is still pending',
    record,
  );
}

/**
 * What can be told of an answer before it is sent as a signal, from the record alone: a closed question, an
 * answerer outside the audience, an answer that breaks the answer rules. The workflow checks all of it again,
 * and also what only it knows: whether another answer came first.
 *
 * @throws QuestionOperationError `ALREADY_RESOLVED`, `FORBIDDEN` or `BAD_ANSWER`
 */
export function checkBeforeSignal(record: QuestionRecord, input: SubmitAnswerInput): void {
  if (record.status !== 'pending') throw alreadyResolvedError(record);
  const forbidden = audienceRefusal(record.audience, input.answeredBy, input.groups ?? [], 'answer');
  if (forbidden !== undefined) throw QuestionOperationError.forbidden(forbidden);
  const checked = checkAnswer(record.questions, input);
  if (!checked.ok) throw QuestionOperationError.badAnswer(checked.reason, checked.rule);
}

/** The record as an outcome (without the questions). */
function outcomeOf(record: QuestionRecord): QuestionOutcome {
  const { questions: _questions, ...outcome } = record;
  return outcome;
}

/**
 * Records `answer` for a worker to validate: reads the question from its history (no worker needed), refuses at
 * once what the record alone shows to be wrong, sends the signal, and returns the record as the server holds it,
 * still pending, with `awaitingWorker` naming the answer. When the record shows this very answer taken (the update
 * sent first was accepted after all, by a worker slower than the wait), that outcome is returned instead.
 *
 * @throws QuestionOperationError `ALREADY_RESOLVED` (naming who and when), `FORBIDDEN` or `BAD_ANSWER`
 */
export async function recordAwaitingWorker(
  client: Client,
  handle: WorkflowHandle,
  answer: SubmitAnswerInput & { answerId: string },
): Promise<QuestionOutcome> {
  const description = await describeQuestion(handle);
  const record = await recordFromHistory(client, handle, description);
  if (takenAnswer(record, answer.answerId)) return outcomeOf(record);
  checkBeforeSignal(record, answer);
  const receivedAt = new Date().toISOString();
  try {
    await handle.signal(answerSignal, answer);
  } catch (error) {
    if (!isClosedWorkflowError(error)) throw error;
    const closed = await recordFromHistory(client, handle, await handle.describe());
    if (takenAnswer(closed, answer.answerId)) return outcomeOf(closed);
    throw alreadyResolvedError(closed);
  }
  const { taskQueue } = description;
  const waiting = { receivedAt, answerId: answer.answerId };
  return {
    ...outcomeOf(record),
    unvalidatedAnswers: [
      ...(record.unvalidatedAnswers ?? []),
      answer.answeredBy === undefined ? waiting : { ...waiting, answeredBy: answer.answeredBy },
    ],
    noWorker: { taskQueue },
    awaitingWorker: { ...waiting, taskQueue },
  };
}

/** Whether `record` was answered by the answer of `answerId`. */
function takenAnswer(record: QuestionRecord, answerId: string): boolean {
  return record.status === 'answered' && record.answerId === answerId;
}
