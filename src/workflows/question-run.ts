/**
 * What one run of a question's workflow keeps beside the question's state (the webhook targets, the chat
 * receipts, the messages it took), and the notifications it sends from them.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { CancellationScope, ParentClosePolicy, log, startChild, workflowInfo } from '@temporalio/workflow';
import type { NotificationPosted, WebhookEvent } from '../question/webhook-event';
import type { QuestionState } from './question-state';
import { webhookDeliveryWorkflow } from './webhook-delivery-workflow';

/** Messages this run's handlers have taken: what counts toward the server's per-run limits beside its history. */
export interface HandledCounts {
  updates: number;
  signals: number;
}

/** One run of a question: its state and what the workflow keeps for it. */
export interface QuestionRun {
  question: QuestionState;
  handled: HandledCounts;
  /** Where the question's notifications go: its own webhook URLs and its worker's, settled as it started. */
  targets: string[];
  /** Chat messages posted for this question, reported by their deliveries: later notifications find them here. */
  posted: NotificationPosted[];
}

/** Starts a notification's delivery: to the question's webhooks, or to `to`. */
export type Notify = (
  event: WebhookEvent['event'],
  options?: { to?: string[]; reminder?: number; key?: string },
) => Promise<void>;

/** The current time, ISO-8601. `Date.now()` is deterministic in workflows: the time of the current task. */
export function nowIso(): string {
  return new Date(Date.now()).toISOString();
}

/**
 * The run's notifier. Each notification is a child workflow that outlives the question: a dead webhook retries
 * on its own schedule and never delays or fails the question.
 */
export function notifier(run: QuestionRun): Notify {
  const { workflowId, runId } = workflowInfo();
  return async (event, options = {}) => {
    const to = options.to ?? run.targets;
    if (to.length === 0) return;
    const payload: WebhookEvent = {
      event,
      workflowId,
      runId,
      record: run.question.record,
      occurredAt: nowIso(),
    };
    if (options.reminder !== undefined) payload.reminder = options.reminder;
    if (run.posted.length > 0) payload.posted = [...run.posted];
    // A reminder's number, or a refused answer's id: what tells one notification of an event from another.
    const key = options.reminder ?? options.key;
    const suffix = key === undefined ? '' : `/${key}`;
    try {
      // Started outside the cancellable root scope: cancelling the question must not cancel a delivery.
      await CancellationScope.nonCancellable(() =>
        startChild(webhookDeliveryWorkflow, {
          workflowId: `${workflowId}/webhook/${event}${suffix}`,
          args: [{ targets: to, payload }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
        }),
      );
    } catch (error) {
      // Notifications are a courtesy: the question goes on without them.
      log.warn('could not start webhook delivery', { event, error: String(error) });
    }
  };
}
