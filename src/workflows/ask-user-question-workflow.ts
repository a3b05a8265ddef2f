/**
 * `askUserQuestionWorkflow`: one durable question. It waits, for as long as it takes, for the first valid
 * answer (signal `answer` or update `submitAnswer`), a decline, an optional deadline, or cancellation.
 * Its state lives in Temporal's history, so restarts of the agent, the worker or the server lose nothing.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import {
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
import type { AskUserQuestionWorkflowInput, AskUserQuestionWorkflowResult } from '../types';
import type { createActivities } from '../activities/webhook-activities';
import {
  answerSignal,
  declineUpdate,
  getQuestionQuery,
  submitAnswerUpdate,
  type QuestionMemo,
} from './definitions';
import { QuestionState } from './question-state';
import type { WebhookEvent } from './webhook-event';
import { webhookDeliveryWorkflow } from './webhook-delivery-workflow';

const { webhookTargets } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
});

function nowIso(): string {
  // Date.now() is deterministic in workflows: it is the time of the current workflow task.
  return new Date(Date.now()).toISOString();
}

export async function askUserQuestionWorkflow(
  input: AskUserQuestionWorkflowInput,
): Promise<AskUserQuestionWorkflowResult> {
  const info = workflowInfo();
  const question = new QuestionState(input, info.startTime);

  // Handlers are set before the first await so that no message delivered with the first task is dropped.
  setHandler(getQuestionQuery, () => question.record);
  setHandler(answerSignal, (answer: unknown) => {
    question.receiveSignal(answer, nowIso());
  });
  setHandler(submitAnswerUpdate, (answer: unknown) => question.submit(answer, nowIso()), {
    validator: (answer: unknown) => {
      question.checkSubmit(answer);
    },
  });
  setHandler(declineUpdate, (decline: unknown) => question.decline(decline, nowIso()), {
    validator: (decline: unknown) => {
      question.checkDecline(decline);
    },
  });

  setCurrentDetails(question.details);
  let targets: string[] = [];

  const notify = async (event: WebhookEvent['event']): Promise<void> => {
    if (targets.length === 0) return;
    const payload: WebhookEvent = {
      event,
      workflowId: info.workflowId,
      runId: info.runId,
      record: question.record,
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
        ? (await condition(() => !question.isPending), true)
        : await condition(() => !question.isPending, input.timeoutMs);
    if (!settled) question.expire(nowIso());
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // Only a question still pending ends Canceled; an answer recorded in the same task stands.
    if (question.cancel(nowIso())) cancellation = error as Error;
  }

  // Cleanup runs even when the workflow is being cancelled.
  await CancellationScope.nonCancellable(async () => {
    upsertMemo(memoUpdate(question));
    setCurrentDetails(question.details);
    await notify('question.resolved');
    // Let an update handler that is still running finish and reply before the workflow closes.
    await condition(allHandlersFinished);
  });
  if (cancellation !== undefined) throw cancellation;
  return question.result(nowIso());
}

function memoUpdate(question: QuestionState): Partial<QuestionMemo> {
  const { status, resolvedAt } = question.record;
  return resolvedAt === undefined ? { status } : { status, resolvedAt };
}
