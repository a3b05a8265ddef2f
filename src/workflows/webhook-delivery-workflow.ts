/**
 * `webhookDeliveryWorkflow`: delivers one notification to every webhook target, each with its own retries
 * and backoff. It runs as an abandoned child of the question, so a receiver that is down for hours neither
 * delays nor fails the question, and a delivery outlives the question's completion.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/webhook-activities';
import type { WebhookDeliveryInput } from '../question/webhook-event';

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
  const failed = input.targets.filter((_url, index) => outcomes[index]?.status === 'rejected');
  if (failed.length > 0) {
    throw ApplicationFailure.nonRetryable(
      `webhook delivery failed for ${failed.join(', ')}`,
      'WEBHOOK_FAILED',
    );
  }
}
