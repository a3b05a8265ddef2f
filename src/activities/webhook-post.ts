/**
 * One webhook POST: the notification as JSON, or in Slack's incoming-webhook form, signed when the worker has a
 * secret, and its failure classified for Temporal's retries.
 */
import { createHmac } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { errorText } from '../common';
import type { WebhookEvent } from '../question/webhook-event';
import { slackMessage } from '../slack-messages';

/** How a worker POSTs. */
export interface WebhookPostSettings {
  fetch: typeof fetch;
  /** Signs each body with `x-ask-user-signature: sha256=<hex HMAC>`. */
  secret: string | undefined;
  /** Per-attempt timeout. */
  timeoutMs: number;
}

/** Statuses a receiver may recover from; any other 4xx means the request itself is wrong, so retrying is futile. */
const RETRYABLE_CLIENT_STATUSES = new Set([408, 409, 425, 429]);

/** The headers of one POST: what happened, the delivery's identity for deduplication, the signature. */
function headersOf(event: WebhookEvent, body: string, secret: string | undefined): Record<string, string> {
  const reminder = event.reminder === undefined ? '' : `#${event.reminder}`;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'durable-ask-user',
    'x-ask-user-event': event.event,
    'x-ask-user-delivery': `${event.workflowId}#${event.event}${reminder}`,
  };
  if (secret !== undefined) {
    headers['x-ask-user-signature'] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  }
  return headers;
}

/**
 * POSTs `event` to `url` (named `configured` in failures, as the operator wrote it). Network errors, 5xx and the
 * retryable 4xx fail retryably; any other 4xx for good. Runs inside an activity: its cancellation aborts the POST.
 *
 * @throws ApplicationFailure `WEBHOOK_UNREACHABLE`, `WEBHOOK_FAILED` (retryable) or `WEBHOOK_REJECTED`
 */
export async function postWebhook(
  configured: string,
  target: { url: string; format: 'json' | 'slack' },
  event: WebhookEvent,
  settings: WebhookPostSettings,
): Promise<number> {
  const body = JSON.stringify(target.format === 'slack' ? slackMessage(event) : event);
  const headers = headersOf(event, body, settings.secret);
  const context = Context.current();
  const signal = AbortSignal.any([context.cancellationSignal, AbortSignal.timeout(settings.timeoutMs)]);
  let response: Response;
  try {
    response = await settings.fetch(target.url, { method: 'POST', headers, body, signal });
  } catch (error) {
    // A cancelled activity reports the cancellation, not a delivery failure.
    if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
    throw ApplicationFailure.retryable(
      `POST ${configured} failed: ${errorText(error)}`,
      'WEBHOOK_UNREACHABLE',
    );
  }
  // Drain the body so the connection is released.
  await response.arrayBuffer().catch(() => undefined);
  if (response.ok) return response.status;
  const message = `POST ${configured} answered ${response.status}`;
  if (response.status >= 400 && response.status < 500 && !RETRYABLE_CLIENT_STATUSES.has(response.status)) {
    throw ApplicationFailure.nonRetryable(message, 'WEBHOOK_REJECTED');
  }
  throw ApplicationFailure.retryable(message, 'WEBHOOK_FAILED');
}
