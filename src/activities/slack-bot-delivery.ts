/**
 * Notifications posted by a Slack bot (`chat.postMessage` with a bot token) instead of an incoming webhook: the
 * interactive message people answer in (see `src/slack-messages/slack-blocks.ts`), reminders in its thread, and
 * the resolution written over it with `chat.update`. A target reads `slack-bot:<channel>`.
 *
 * The first post is reported back to the question (the delivery workflow signals `notificationPosted`), so
 * every later notification of the question carries it in `posted`: that is how a reminder finds its thread
 * and the resolution its message.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type * as SlackWebApi from '@slack/web-api';
import type { WebClient } from '@slack/web-api';
import { errorText } from '../common';
import type { NotificationPosted, WebhookEvent } from '../question/webhook-event';
import {
  interactiveMessage,
  loadSlackWebApi,
  slackWebClient,
  staticMessage,
  threadReply,
  type SlackBotMessage,
  type SlackBotSettings,
} from '../slack-messages';

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
  const reason = errorText(error instanceof WebAPIRequestError ? error.original : error);
  return ApplicationFailure.retryable(`Slack ${method} failed: ${reason}`, 'SLACK_UNREACHABLE');
}

/**
 * Posts one notification to the channel of a `slack-bot:` target; returns the message to report when it
 * started a thread.
 */
export type SlackBotDelivery = (
  target: string,
  channel: string,
  event: WebhookEvent,
) => Promise<NotificationPosted | undefined>;

/** The bot's Web API calls, each failure classified for Temporal's retries. */
class SlackBotPoster {
  private loading: Promise<{ sdk: typeof SlackWebApi; client: WebClient }> | undefined;

  constructor(
    private readonly settings: SlackBotSettings,
    private readonly timeoutMs: number,
  ) {}

  /** Made at the first delivery: a worker whose questions never reach Slack never loads the SDK. */
  private bot() {
    this.loading ??= Promise.all([
      loadSlackWebApi(),
      slackWebClient(this.settings, { retries: 0, timeoutMs: this.timeoutMs }),
    ]).then(([sdk, client]) => ({ sdk, client }));
    return this.loading;
  }

  /** Posts `message` (in `threadTs`'s thread when given); the message to report when it started a thread. */
  async post(
    target: string,
    channel: string,
    message: SlackBotMessage,
    threadTs?: string,
  ): Promise<NotificationPosted | undefined> {
    const { sdk, client } = await this.bot();
    let result: Awaited<ReturnType<WebClient['chat']['postMessage']>>;
    try {
      result = await client.chat.postMessage({
        channel,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
        unfurl_media: false,
        ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
      });
    } catch (error) {
      throw slackFailure('chat.postMessage', error, sdk);
    }
    if (threadTs !== undefined || result.ts === undefined) return undefined;
    return { target, channel: result.channel ?? channel, ts: result.ts };
  }

  /** Rewrites the first message; one that is gone gets `message` as a new post in its channel instead. */
  async rewrite(first: NotificationPosted, message: SlackBotMessage): Promise<void> {
    const { sdk, client } = await this.bot();
    const { text, blocks } = message;
    try {
      await client.chat.update({ channel: first.channel, ts: first.ts, text, blocks });
    } catch (error) {
      if (!(error instanceof sdk.WebAPIPlatformError && GONE_MESSAGE_ERRORS.has(error.data.error))) {
        throw slackFailure('chat.update', error, sdk);
      }
      await this.post(first.target, first.channel, message);
    }
  }
}

/** Delivers notifications as the bot. */
export function createSlackBotDelivery(settings: SlackBotSettings, timeoutMs: number): SlackBotDelivery {
  const bot = new SlackBotPoster(settings, timeoutMs);
  return async (target, channel, event) => {
    const first = event.posted?.find((entry) => entry.target === target);
    switch (event.event) {
      case 'question.pending':
      case 'approval.pending':
        return await bot.post(target, channel, interactiveMessage(event));
      case 'question.reminder':
      case 'question.escalated':
        // In the first message's thread; without one (its post failed, or the target is an escalation's own),
        // a message that can be answered.
        if (first !== undefined) return await bot.post(target, first.channel, threadReply(event), first.ts);
        return await bot.post(target, channel, interactiveMessage(event));
      case 'approval.progress':
        // Still to be decided: the first message, with its controls, now says how many approved.
        if (first === undefined) return await bot.post(target, channel, interactiveMessage(event));
        await bot.rewrite(first, interactiveMessage(event));
        return undefined;
      case 'question.resolved':
      case 'approval.decided':
        if (first === undefined) await bot.post(target, channel, staticMessage(event));
        else await bot.rewrite(first, staticMessage(event));
        return undefined;
      case 'question.answer_refused':
        // For the answerer who was told their answer waits for a worker; the channel's message still asks.
        return undefined;
    }
  };
}
