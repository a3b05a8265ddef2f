/**
 * `webhookDeliveryWorkflow`: delivers one notification to every webhook target, each with its own retries
 * and backoff. It runs as an abandoned child of the question, so a receiver that is down for hours neither
 * delays nor fails the question, and a delivery outlives the question's completion.
 *
 * A chat target that posted a message (a Slack bot's `chat.postMessage`) is reported back to the question with
 * the `notificationPosted` signal, so its later notifications thread under that message or update it.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import {
  ApplicationFailure,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/webhook-activities';
import { notificationPostedSignal } from '../question/definitions';
import type { NotificationPosted, WebhookDeliveryInput } from '../question/webhook-event';

const { deliverWebhook } = proxyActivities<ReturnType<typeof createActivities>>({
  // Each attempt is short; the whole delivery gives up after a day of retries.
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: '24 hours',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<void> {
  // Settle every target before judging, so one receiver refusing for good does not stop the others.
  const outcomes = await Promise.allSettled(
    input.targets.map((url) => deliverWebhook({ url, payload: input.payload })),
  );
  const posted: NotificationPosted[] = [];
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled' && outcome.value.posted !== undefined)
      posted.push(outcome.value.posted);
  }
  if (posted.length > 0) await reportPosted(posted);
  const failed = input.targets.filter((_url, index) => outcomes[index]?.status === 'rejected');
  if (failed.length > 0) {
    throw ApplicationFailure.nonRetryable(
      `webhook delivery failed for ${failed.join(', ')}`,
      'WEBHOOK_FAILED',
    );
  }
}

/** Tells the question where its messages are. A question that has closed meanwhile needs none of them. */
async function reportPosted(posted: NotificationPosted[]): Promise<void> {
  const parent = workflowInfo().parent;
  if (parent === undefined) return;
  // By workflow id alone: a question that continued as new meanwhile takes the receipt in its current run.
  const question = getExternalWorkflowHandle(parent.workflowId);
  for (const message of posted) {
    try {
      await question.signal(notificationPostedSignal, message);
    } catch (error) {
      log.info('the question closed before its message could be reported', { error: String(error) });
    }
  }
}
