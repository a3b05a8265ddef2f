/**
 * Notifications posted by a Slack bot (`chat.postMessage` with a bot token) instead of an incoming webhook: the
 * interactive message people answer in (see `src/slack/slack-blocks.ts`), reminders in its thread, and the
 * resolution written over it with `chat.update`. A target reads `slack-bot:<channel>`.
 *
 * The first post is reported back to the question (the delivery workflow signals `notificationPosted`), so
 * every later notification of the question carries it in `posted`: that is how a reminder finds its thread
 * and the resolution its message.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type * as SlackWebApi from '@slack/web-api';
import type { WebClient } from '@slack/web-api';
import type { NotificationPosted, WebhookEvent } from '../question/webhook-event';
import { interactiveMessage, staticMessage, threadReply, type SlackBotMessage } from '../slack/slack-blocks';
import { loadSlackWebApi, slackWebClient, type SlackBotSettings } from '../slack/slack-client';

/** Prefix of a target the bot posts to: `slack-bot:C0123ABCD` (a channel id, or a name such as `#ops`). */
export const SLACK_BOT_TARGET_PREFIX = 'slack-bot:';

/** The channel of a `slack-bot:` target, or `undefined` for any other target. */
export function slackBotChannel(target: string): string | undefined {
  return target.startsWith(SLACK_BOT_TARGET_PREFIX)
    ? target.slice(SLACK_BOT_TARGET_PREFIX.length)
    : undefined;
}

/** Slack's errors that a later attempt may not get: everything else means the call itself is wrong. */
const TRANSIENT_SLACK_ERRORS = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/** Errors of `chat.update` that mean the message is gone: the resolution is posted afresh instead. */
const GONE_MESSAGE_ERRORS = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed']);

/**
 * A failed Web API call as Temporal should retry it: the network, a 5xx, a 429 or one of Slack's transient
 * errors is retried (after `Retry-After` when Slack gave one); any other refusal (`invalid_auth`,
 * `channel_not_found`, `not_in_channel`, `invalid_blocks`) is not.
 */
export function slackFailure(method: string, error: unknown, sdk: typeof SlackWebApi): ApplicationFailure {
  const { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } = sdk;
  if (error instanceof WebAPIRateLimitedError) {
    return ApplicationFailure.create({
      message: `Slack ${method}: rate limited for ${error.retryAfter}s`,
      type: 'SLACK_RATE_LIMITED',
      nextRetryDelay: `${Math.max(1, error.retryAfter)}s`,
    });
  }
  if (error instanceof WebAPIPlatformError) {
    const message = `Slack ${method} refused: ${error.data.error}`;
    return TRANSIENT_SLACK_ERRORS.has(error.data.error)
      ? ApplicationFailure.retryable(message, 'SLACK_FAILED')
      : ApplicationFailure.nonRetryable(message, 'SLACK_REJECTED');
  }
  if (error instanceof WebAPIHTTPError) {
    const message = `Slack ${method} answered HTTP ${error.statusCode}`;
    const retryable = error.statusCode >= 500 || error.statusCode === 408 || error.statusCode === 429;
    return retryable
      ? ApplicationFailure.retryable(message, 'SLACK_FAILED')
      : ApplicationFailure.nonRetryable(message, 'SLACK_REJECTED');
  }
  const reason =
    error instanceof WebAPIRequestError
      ? error.original.message
      : error instanceof Error
        ? error.message
        : String(error);
  return ApplicationFailure.retryable(`Slack ${method} failed: ${reason}`, 'SLACK_UNREACHABLE');
}

/** Posts one notification to a `slack-bot:` target; returns the message to report when it started a thread. */
export type SlackBotDelivery = (
  target: string,
  event: WebhookEvent,
) => Promise<NotificationPosted | undefined>;

/** Delivers notifications as the bot. */
export function createSlackBotDelivery(settings: SlackBotSettings, timeoutMs: number): SlackBotDelivery {
  let loading: Promise<{ sdk: typeof SlackWebApi; client: WebClient }> | undefined;
  // Made at the first delivery: a worker whose questions never reach Slack never loads the SDK.
  const bot = () =>
    (loading ??= Promise.all([loadSlackWebApi(), slackWebClient(settings, { retries: 0, timeoutMs })]).then(
      ([sdk, client]) => ({ sdk, client }),
    ));

  const call = async <T>(method: string, send: (client: WebClient) => Promise<T>): Promise<T> => {
    const { sdk, client } = await bot();
    try {
      return await send(client);
    } catch (error) {
      throw slackFailure(method, error, sdk);
    }
  };

  const post = async (
    target: string,
    channel: string,
    message: SlackBotMessage,
    threadTs?: string,
  ): Promise<NotificationPosted | undefined> => {
    const result = await call('chat.postMessage', (client) =>
      client.chat.postMessage({
        channel,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
        unfurl_media: false,
        ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
      }),
    );
    if (threadTs !== undefined || result.ts === undefined) return undefined;
    return { target, channel: result.channel ?? channel, ts: result.ts };
  };

  return async (target, event) => {
    const channel = slackBotChannel(target);
    if (channel === undefined || channel === '') {
      throw ApplicationFailure.nonRetryable(`${target}: not a slack-bot:<channel> target`, 'SLACK_REJECTED');
    }
    const first = event.posted?.find((entry) => entry.target === target);
    switch (event.event) {
      case 'question.pending':
      case 'approval.pending':
        return await post(target, channel, interactiveMessage(event));
      case 'question.reminder':
      case 'question.escalated':
        // In the first message's thread; without one (its post failed), a message that can be answered.
        if (first !== undefined) return await post(target, first.channel, threadReply(event), first.ts);
        return await post(target, channel, interactiveMessage(event));
      case 'question.resolved':
      case 'approval.decided': {
        const message = staticMessage(event);
        if (first === undefined) {
          await post(target, channel, message);
          return undefined;
        }
        const { sdk, client } = await bot();
        try {
          await client.chat.update({
            channel: first.channel,
            ts: first.ts,
            text: message.text,
            blocks: message.blocks,
          });
        } catch (error) {
          if (!(error instanceof sdk.WebAPIPlatformError && GONE_MESSAGE_ERRORS.has(error.data.error))) {
            throw slackFailure('chat.update', error, sdk);
          }
          await post(target, first.channel, message);
        }
        return undefined;
      }
    }
  };
}
