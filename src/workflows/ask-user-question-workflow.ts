/**
 * `askUserQuestionWorkflow`: one durable question. It waits, for as long as it takes, for the first valid
 * answer (signal `answer` or update `submitAnswer`), a decline, an optional deadline, or cancellation.
 * Its state lives in Temporal's history, so restarts of the agent, the worker or the server lose nothing.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  ParentClosePolicy,
  condition,
  isCancellation,
  log,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertMemo,
  workflowInfo,
  proxyLocalActivities,
} from '@temporalio/workflow';
import { checkAnswer } from '../answer/answer-rules';
import type {
  AskUserQuestionAnswer,
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  DeclineInput,
  QuestionOutcome,
  QuestionRecord,
  QuestionStatus,
  SubmitAnswerInput,
} from '../types';
import type { createActivities } from '../activities/webhook-activities';
import {
  FAILURE_TYPES,
  answerSignal,
  declineUpdate,
  getQuestionQuery,
  submitAnswerUpdate,
  type QuestionMemo,
} from './definitions';
import { resolvedReason } from './question-text';
import type { WebhookEvent } from './webhook-event';
import { webhookDeliveryWorkflow } from './webhook-delivery-workflow';

const { webhookTargets } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
});

/** Signals that broke the rules are kept for the record, but only this many, so state stays bounded. */
const MAX_REJECTED_ANSWERS = 20;

function nowIso(): string {
  // Date.now() is deterministic in workflows: it is the time of the current workflow task.
  return new Date(Date.now()).toISOString();
}

function formatDuration(milliseconds: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1_000, 's'],
  ];
  for (const [size, unit] of units) {
    if (milliseconds >= size && milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return `${milliseconds}ms`;
}

export async function askUserQuestionWorkflow(
  input: AskUserQuestionWorkflowInput,
): Promise<AskUserQuestionWorkflowResult> {
  const info = workflowInfo();
  const record: QuestionRecord = {
    questions: input.questions,
    status: 'pending',
    askedAt: info.startTime.toISOString(),
    rejectedAnswers: [],
  };
  if (input.agent !== undefined) record.agent = input.agent;
  if (input.toolCallId !== undefined) record.toolCallId = input.toolCallId;
  if (input.timeoutMs !== undefined) {
    record.expiresAt = new Date(info.startTime.getTime() + input.timeoutMs).toISOString();
  }

  /** Why an answer or decline arriving now cannot be taken, or undefined while the question is open. */
  const lateReason = (): string | undefined => resolvedReason(record);

  const resolve = (status: QuestionStatus): void => {
    record.status = status;
    record.resolvedAt = nowIso();
  };

  /** The normalised answer, or a `BAD_ANSWER` failure naming the broken rule. */
  const validAnswer = (answer: SubmitAnswerInput): AskUserQuestionAnswer => {
    const checked = checkAnswer(record.questions, answer);
    if (checked.ok) return checked.answer;
    throw ApplicationFailure.create({
      type: FAILURE_TYPES.badAnswer,
      message: checked.reason,
      details: [checked.rule],
      nonRetryable: true,
    });
  };

  const applyAnswer = (answer: SubmitAnswerInput): QuestionOutcome => {
    record.answer = validAnswer(answer);
    if (typeof answer.answeredBy === 'string') record.answeredBy = answer.answeredBy;
    resolve('answered');
    return outcomeOf(record);
  };

  const refuseIfLate = (): void => {
    const reason = lateReason();
    if (reason !== undefined) {
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.alreadyResolved,
        message: reason,
        nonRetryable: true,
      });
    }
  };

  // Handlers are set before the first await so that no message delivered with the first task is dropped.
  setHandler(getQuestionQuery, () => record);

  setHandler(answerSignal, (answer) => {
    const late = lateReason();
    const reason =
      late ??
      (() => {
        const checked = checkAnswer(record.questions, answer);
        return checked.ok ? undefined : checked.reason;
      })();
    if (reason === undefined) {
      applyAnswer(answer);
      return;
    }
    // A signal cannot be refused to its sender: record why it was ignored, so `getQuestion` shows it.
    const rejected: QuestionRecord['rejectedAnswers'][number] = { receivedAt: nowIso(), reason };
    if (typeof answer?.answeredBy === 'string') rejected.answeredBy = answer.answeredBy;
    record.rejectedAnswers.push(rejected);
    if (record.rejectedAnswers.length > MAX_REJECTED_ANSWERS) record.rejectedAnswers.shift();
  });

  setHandler(
    submitAnswerUpdate,
    (answer) => {
      refuseIfLate();
      return applyAnswer(answer);
    },
    {
      validator: (answer: SubmitAnswerInput) => {
        refuseIfLate();
        validAnswer(answer);
      },
    },
  );

  setHandler(
    declineUpdate,
    (decline: DeclineInput) => {
      refuseIfLate();
      if (typeof decline?.reason === 'string' && decline.reason.trim() !== '')
        record.declineReason = decline.reason;
      if (typeof decline?.declinedBy === 'string') record.declinedBy = decline.declinedBy;
      resolve('declined');
      return outcomeOf(record);
    },
    { validator: (_decline: DeclineInput) => refuseIfLate() },
  );

  setCurrentDetails('Waiting for an answer');
  let targets: string[] = [];

  const notify = async (event: WebhookEvent['event']): Promise<void> => {
    if (targets.length === 0) return;
    const payload: WebhookEvent = {
      event,
      workflowId: info.workflowId,
      runId: info.runId,
      record,
      occurredAt: nowIso(),
    };
    // A child that outlives this workflow: a dead webhook retries on its own schedule and never delays or
    // fails the question.
    try {
      // Started outside the cancellable root scope: cancelling the question must not cancel a delivery.
      await CancellationScope.nonCancellable(() =>
        startChild(webhookDeliveryWorkflow, {
          workflowId: `${info.workflowId}/webhook/${event}`,
          args: [{ targets, payload }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
        }),
      );
    } catch (error) {
      // Notifications are a courtesy: the question goes on without them.
      log.warn('could not start webhook delivery', { event, error: String(error) });
    }
  };

  let cancellation: Error | undefined;
  try {
    targets = [...new Set([...(input.webhookUrls ?? []), ...(await webhookTargets())])];
    await notify('question.pending');
    const settled =
      input.timeoutMs === undefined
        ? (await condition(() => record.status !== 'pending'), true)
        : await condition(() => record.status !== 'pending', input.timeoutMs);
    if (!settled) resolve('expired');
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // An answer or decline recorded in the same task as the cancellation request stands: its sender was
    // already told it was recorded. Only a question still pending ends Canceled.
    if (record.status === 'pending') {
      resolve('cancelled');
      cancellation = error as Error;
    }
  }

  // Cleanup runs even when the workflow is being cancelled.
  await CancellationScope.nonCancellable(async () => {
    upsertMemo(memoUpdate(record));
    setCurrentDetails(DETAILS_BY_STATUS[record.status]);
    await notify('question.resolved');
    // Let an update handler that is still running finish and reply before the workflow closes.
    await condition(allHandlersFinished);
  });
  if (cancellation !== undefined) throw cancellation;
  return toResult(record, input.timeoutMs);
}

/** The record without its questions: what the updates return. */
function outcomeOf(record: QuestionRecord): QuestionOutcome {
  const { questions: _questions, ...outcome } = record;
  return outcome;
}

const DETAILS_BY_STATUS: Record<QuestionStatus, string> = {
  pending: 'Waiting for an answer',
  answered: 'Answered',
  declined: 'Declined',
  cancelled: 'Cancelled',
  expired: 'Expired',
};

function memoUpdate(record: QuestionRecord): Partial<QuestionMemo> {
  return record.resolvedAt === undefined
    ? { status: record.status }
    : { status: record.status, resolvedAt: record.resolvedAt };
}

function toResult(record: QuestionRecord, timeoutMs: number | undefined): AskUserQuestionWorkflowResult {
  const resolvedAt = record.resolvedAt ?? nowIso();
  switch (record.status) {
    case 'answered': {
      const result: AskUserQuestionWorkflowResult = {
        status: 'answered',
        answer: record.answer!,
        resolvedAt,
      };
      if (record.answeredBy !== undefined) result.answeredBy = record.answeredBy;
      return result;
    }
    case 'declined': {
      const result: AskUserQuestionWorkflowResult = { status: 'declined', resolvedAt };
      if (record.declineReason !== undefined) result.reason = record.declineReason;
      if (record.declinedBy !== undefined) result.declinedBy = record.declinedBy;
      return result;
    }
    default:
      return { status: 'expired', resolvedAt, after: formatDuration(timeoutMs ?? 0) };
  }
}
