/**
 * A question's record rebuilt from its workflow's history and memo, which the server alone can serve: what
 * `QuestionClient` reads when no worker answers the query, and what names who resolved a closed question.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { definedFields } from '../common';
import { QuestionOperationError } from '../interaction/question-operation-error';
import { answerSignal, type QuestionMemo } from '../question/definitions';
import type {
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  QuestionRecord,
  SubmitAnswerInput,
  UnvalidatedAnswer,
} from '../types';
import { questionStatusOf, throughCodecs } from './question-rows';

/** What `describe()` says of a workflow. */
export type Description = Awaited<ReturnType<WorkflowHandle['describe']>>;

/** `payloads` as values, through `client`'s codecs and payload converter. */
async function decoded<T>(client: Client, payloads: Payload[]): Promise<(T | undefined)[]> {
  const { payloadConverter } = client.options.loadedDataConverter;
  return (await throughCodecs(client, payloads)).map((payload) => payloadConverter.fromPayload<T>(payload));
}

/** The workflow's result on the record: the answer, the decline or the decision, and when. */
function applyResult(record: QuestionRecord, result: AskUserQuestionWorkflowResult): void {
  record.resolvedAt = result.resolvedAt;
  if (result.rejectedAnswers !== undefined) record.rejectedAnswers = result.rejectedAnswers;
  if (result.status === 'decided') {
    // The status (answered, or expired when the deadline decided) is the memo's, written as it closed.
    record.decision = result.decision;
    if (result.requiredApprovals !== undefined) record.requiredApprovals = result.requiredApprovals;
    if (result.approvals !== undefined) record.approvals = result.approvals;
    if (result.requiredRejections !== undefined) record.requiredRejections = result.requiredRejections;
    if (result.rejections !== undefined) record.rejections = result.rejections;
    if (result.grantNotUsed !== undefined) record.grantNotUsed = result.grantNotUsed;
    return;
  }
  record.status = result.status;
  if (result.status === 'answered') {
    record.answer = result.answer;
    if (result.answeredBy !== undefined) record.answeredBy = result.answeredBy;
    if (result.answerId !== undefined) record.answerId = result.answerId;
  }
  if (result.status === 'declined') {
    if (result.reason !== undefined) record.declineReason = result.reason;
    if (result.declinedBy !== undefined) record.declinedBy = result.declinedBy;
  }
}

/** One event of a history. */
type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

function eventTimeIso(event: HistoryEvent): string {
  const time = event.eventTime;
  return new Date(Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6)).toISOString();
}

/**
 * The `answer` signals received since the last workflow task completed: answers the server holds that no worker
 * has taken or refused yet (sent while none ran). Empty once a worker has run the question since.
 */
async function unvalidatedAnswers(client: Client, events: HistoryEvent[]): Promise<UnvalidatedAnswer[]> {
  let start = 0;
  for (const [index, event] of events.entries()) {
    if (event.workflowTaskCompletedEventAttributes) start = index + 1;
  }
  const answers: UnvalidatedAnswer[] = [];
  for (const event of events.slice(start)) {
    const signaled = event.workflowExecutionSignaledEventAttributes;
    if (signaled?.signalName !== answerSignal.name) continue;
    const [input] = await decoded<Partial<SubmitAnswerInput>>(client, signaled.input?.payloads ?? []);
    const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
    answers.push(
      definedFields({
        receivedAt: eventTimeIso(event),
        answeredBy: text(input?.answeredBy),
        answerId: text(input?.answerId),
      }),
    );
  }
  return answers;
}

/**
 * Rebuilds the record from the start event's input and, once closed, the workflow's result; while pending, with
 * the answers received that no worker has validated yet.
 *
 * @throws QuestionOperationError `NOT_FOUND` when the history holds no question's input.
 */
export async function recordFromHistory(
  client: Client,
  handle: WorkflowHandle,
  description: Description,
): Promise<QuestionRecord> {
  const history = await handle.fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const [input] = await decoded<AskUserQuestionWorkflowInput>(client, started?.input?.payloads ?? []);
  if (input === undefined) throw QuestionOperationError.notFound(handle.workflowId);
  const memo = (description.memo ?? {}) as Partial<QuestionMemo>;
  const record: QuestionRecord = definedFields({
    questions: input.questions,
    approval: input.approval,
    status: questionStatusOf(description, memo),
    askedAt: description.startTime.toISOString(),
    rejectedAnswers: [],
    agent: input.agent,
    toolCallId: input.toolCallId,
    // The deadline as the workflow last recorded it in its memo (it moves with `extendDeadline`).
    expiresAt: memo.expiresAt,
    // The audience in force (the provider's, or the worker's policy once applied), as the memo carries it.
    audience: memo.audience,
  });
  if (record.status === 'pending') {
    const waiting = await unvalidatedAnswers(client, history.events ?? []);
    if (waiting.length > 0) record.unvalidatedAnswers = waiting;
  }
  const closedAt = description.closeTime?.toISOString();
  if (record.status !== 'pending' && closedAt !== undefined) record.resolvedAt = memo.resolvedAt ?? closedAt;
  if (description.status.name === 'COMPLETED') {
    const completed = history.events?.find((event) => event.workflowExecutionCompletedEventAttributes);
    const payloads = completed?.workflowExecutionCompletedEventAttributes?.result?.payloads ?? [];
    const [result] = await decoded<AskUserQuestionWorkflowResult>(client, payloads);
    if (result !== undefined) applyResult(record, result);
  }
  return record;
}
