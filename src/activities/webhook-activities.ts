/**
 * Webhook notifications: the side effects of a durable question. Built by a factory over their
 * dependencies (the fetch function, the configured URLs), so tests can pass their own.
 */
import { createHmac } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { inboxLink } from '../question/inbox-link';
import { UserInteractionError } from '../interaction/user-interaction-error';
import type { QuestionPolicies } from '../types';
import {
  checkPoliciesOption,
  isEmptyPolicy,
  policyFor,
  type WorkerQuestionDefaults,
} from '../question/question-policy';
import type { NotificationPosted, WebhookEvent } from '../question/webhook-event';
import { checkSlackApiUrl, slackBotSettingsFromEnv, type SlackBotSettings } from '../slack/slack-client';
import { slackMessage } from '../slack/slack-message';
import { SLACK_BOT_TARGET_PREFIX, createSlackBotDelivery, slackBotChannel } from './slack-bot-delivery';

/** What the webhook activities need. */
export interface WebhookActivityOptions {
  /** URLs that receive a POST for every pending and resolved question. */
  webhookUrls?: readonly string[];
  /** When set, each POST carries `x-ask-user-signature: sha256=<hex HMAC of the body>`. */
  webhookSecret?: string;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Per-attempt timeout of one POST. Default 10 s. */
  requestTimeoutMs?: number;
  /**
   * Base URL of the ops inbox (`ask-user inbox`). When set, every payload carries `link`: the question's page
   * there. Default from `ASK_USER_INBOX_URL`.
   */
  inboxUrl?: string;
  /**
   * A Slack bot that posts interactive messages (`chat.postMessage`) to `slack-bot:<channel>` targets, threads
   * reminders under them and updates them once resolved. With `channel`, every question of the worker gets the
   * target `slack-bot:<channel>`. Default from `ASK_USER_SLACK_BOT_TOKEN`, `ASK_USER_SLACK_CHANNEL` and
   * `ASK_USER_SLACK_API_URL`.
   */
  slack?: SlackBotOptions;
}

/** The bot of {@link WebhookActivityOptions.slack}. */
export interface SlackBotOptions extends SlackBotSettings {
  /** The channel every question is posted to (an id such as `C0123ABCD`, or `#name`). */
  channel?: string;
}

/**
 * Reads `ASK_USER_WEBHOOK_URLS` (comma- or whitespace-separated), `ASK_USER_WEBHOOK_SECRET`,
 * `ASK_USER_INBOX_URL`, and the Slack bot's `ASK_USER_SLACK_BOT_TOKEN`, `ASK_USER_SLACK_CHANNEL` and
 * `ASK_USER_SLACK_API_URL`.
 */
export function webhookOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): WebhookActivityOptions {
  const options: WebhookActivityOptions = {};
  const urls = (env.ASK_USER_WEBHOOK_URLS ?? '').split(/[\s,]+/).filter((url) => url !== '');
  if (urls.length > 0) options.webhookUrls = urls;
  if (env.ASK_USER_WEBHOOK_SECRET) options.webhookSecret = env.ASK_USER_WEBHOOK_SECRET;
  const inboxUrl = env.ASK_USER_INBOX_URL?.trim();
  if (inboxUrl) options.inboxUrl = inboxUrl;
  const bot = slackBotSettingsFromEnv(env);
  const channel = env.ASK_USER_SLACK_CHANNEL?.trim();
  if (bot !== undefined) options.slack = channel ? { ...bot, channel } : bot;
  return options;
}

/** The target every question of a worker with a Slack channel gets. */
function slackBotTarget(options: WebhookActivityOptions): string | undefined {
  const channel = options.slack?.channel;
  return channel === undefined ? undefined : `${SLACK_BOT_TARGET_PREFIX}${channel}`;
}

/** Prefix of a target URL that wants Slack's incoming-webhook format, e.g. `slack+https://chat.example/hook`. */
export const SLACK_URL_PREFIX = 'slack+';

/** Where a target URL posts, and in which format. */
export interface WebhookTarget {
  /** The URL the POST goes to (without a `slack+` prefix). */
  url: string;
  /**
   * `slack` for Slack's incoming webhooks (a `https://hooks.slack.com/...` URL, or any URL written with the
   * `slack+` prefix, for Slack-compatible receivers); `json` (the {@link WebhookEvent} itself) otherwise.
   */
  format: 'json' | 'slack';
}

/** Reads a configured webhook URL: its format and the URL to post to. */
export function webhookTarget(configured: string): WebhookTarget {
  if (configured.startsWith(SLACK_URL_PREFIX)) {
    return { url: configured.slice(SLACK_URL_PREFIX.length), format: 'slack' };
  }
  let host = '';
  try {
    host = new URL(configured).hostname;
  } catch {
    // Refused by validateWebhookUrls before it gets here.
  }
  return { url: configured, format: host === 'hooks.slack.com' ? 'slack' : 'json' };
}

/** Throws a clear error for an inbox URL that is not http(s). */
function validateInboxUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw UserInteractionError.invalidSetting(`inbox URL ${JSON.stringify(url)}: not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw UserInteractionError.invalidSetting(`inbox URL ${JSON.stringify(url)}: must use http or https`);
  }
}

/** Throws a clear error for a URL that is not http(s), so a typo fails at worker start, not at delivery. */
export function validateWebhookUrls(urls: readonly string[]): void {
  for (const url of urls) {
    const channel = slackBotChannel(url);
    if (channel !== undefined) {
      if (!/^#?[\w.-]{1,80}$/.test(channel)) {
        throw UserInteractionError.invalidSetting(
          `webhook URL ${JSON.stringify(url)}: must name a Slack channel, e.g. slack-bot:C0123ABCD`,
        );
      }
      continue;
    }
    let parsed: URL;
    try {
      parsed = new URL(webhookTarget(url).url);
    } catch {
      throw UserInteractionError.invalidSetting(`webhook URL ${JSON.stringify(url)}: not a valid URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw UserInteractionError.invalidSetting(`webhook URL ${JSON.stringify(url)}: must use http or https`);
    }
  }
}

// Statuses a receiver may recover from; any other 4xx means the request itself is wrong, so retrying is futile.
const RETRYABLE_CLIENT_STATUSES = new Set([408, 409, 425, 429]);

/**
 * Whether a worker with these settings hands its questions anything (webhook URLs, a policy for some agent):
 * only then do its questions run the local activity that fetches them. Call with settings already checked by
 * {@link createActivities}.
 */
export function hasQuestionDefaults(options: WebhookActivityOptions, policy?: QuestionPolicies): boolean {
  if ((options.webhookUrls?.length ?? 0) > 0 || slackBotTarget(options) !== undefined) return true;
  if (policy === undefined) return false;
  const checked = checkPoliciesOption(policy, 'createAskUserWorker');
  return !isEmptyPolicy(checked.base) || [...checked.agents.values()].some((one) => !isEmptyPolicy(one));
}

/**
 * Creates the activities the worker registers.
 *
 * @param policy the worker's question policies, handed to each question as it starts
 * @throws UserInteractionError `INVALID_OPTIONS` naming the policy field that is wrong
 */
export function createActivities(options: WebhookActivityOptions = {}, policy?: QuestionPolicies) {
  const botTarget = slackBotTarget(options);
  const urls = [
    ...new Set([...(options.webhookUrls ?? []), ...(botTarget === undefined ? [] : [botTarget])]),
  ];
  validateWebhookUrls(urls);
  if (options.slack !== undefined) {
    if (options.slack.botToken.trim() === '') {
      throw UserInteractionError.invalidSetting('slack.botToken: must not be empty');
    }
    try {
      checkSlackApiUrl(options.slack.apiUrl ?? 'https://slack.com/api/');
    } catch (error) {
      throw UserInteractionError.invalidSetting(error instanceof Error ? error.message : String(error));
    }
  } else if (urls.some((url) => slackBotChannel(url) !== undefined)) {
    throw UserInteractionError.invalidSetting(
      'slack-bot: targets need a bot token (ASK_USER_SLACK_BOT_TOKEN, or webhooks.slack.botToken)',
    );
  }
  const policies = policy === undefined ? undefined : checkPoliciesOption(policy, 'createAskUserWorker');
  const inboxUrl = options.inboxUrl;
  if (inboxUrl !== undefined) validateInboxUrl(inboxUrl);
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const slackBot = options.slack === undefined ? undefined : createSlackBotDelivery(options.slack, timeoutMs);

  return {
    /**
     * The worker's webhook URLs and its policy for the asking agent; run as a local activity when a question
     * starts, so both are in the question's history. Keeps its first name and, without a policy, its first
     * result (the bare URL list): histories recorded before policies replay against it.
     */
    async webhookTargets(agentId?: string): Promise<string[] | WorkerQuestionDefaults> {
      const questionPolicy = policyFor(policies, agentId);
      return questionPolicy === undefined ? urls : { webhookUrls: urls, policy: questionPolicy };
    },

    /**
     * POSTs one notification, or posts it as the Slack bot for a `slack-bot:` target (then `posted` is the
     * message a later notification threads under or updates). Network errors and 5xx are retried by Temporal
     * with backoff.
     */
    async deliverWebhook(input: {
      url: string;
      payload: WebhookEvent;
    }): Promise<{ status: number; posted?: NotificationPosted }> {
      const event: WebhookEvent =
        inboxUrl === undefined
          ? input.payload
          : { ...input.payload, link: inboxLink(inboxUrl, input.payload.workflowId) };
      if (slackBotChannel(input.url) !== undefined) {
        if (slackBot === undefined) {
          throw ApplicationFailure.nonRetryable(
            `${input.url}: this worker has no Slack bot token (ASK_USER_SLACK_BOT_TOKEN)`,
            'SLACK_NOT_CONFIGURED',
          );
        }
        const posted = await slackBot(input.url, event);
        return posted === undefined ? { status: 200 } : { status: 200, posted };
      }
      const target = webhookTarget(input.url);
      const body = JSON.stringify(target.format === 'slack' ? slackMessage(event) : event);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'durable-ask-user',
        'x-ask-user-event': input.payload.event,
        'x-ask-user-delivery': `${input.payload.workflowId}#${input.payload.event}${input.payload.reminder === undefined ? '' : `#${input.payload.reminder}`}`,
      };
      if (options.webhookSecret !== undefined) {
        const digest = createHmac('sha256', options.webhookSecret).update(body).digest('hex');
        headers['x-ask-user-signature'] = `sha256=${digest}`;
      }
      const context = Context.current();
      const signal = AbortSignal.any([context.cancellationSignal, AbortSignal.timeout(timeoutMs)]);
      let response: Response;
      try {
        response = await doFetch(target.url, { method: 'POST', headers, body, signal });
      } catch (error) {
        // A cancelled activity reports the cancellation, not a delivery failure.
        if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
        const reason = error instanceof Error ? error.message : String(error);
        throw ApplicationFailure.retryable(`POST ${input.url} failed: ${reason}`, 'WEBHOOK_UNREACHABLE');
      }
      // Drain the body so the connection is released.
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) return { status: response.status };
      const message = `POST ${input.url} answered ${response.status}`;
      if (
        response.status >= 400 &&
        response.status < 500 &&
        !RETRYABLE_CLIENT_STATUSES.has(response.status)
      ) {
        throw ApplicationFailure.nonRetryable(message, 'WEBHOOK_REJECTED');
      }
      throw ApplicationFailure.retryable(message, 'WEBHOOK_FAILED');
    },
  };
}

/** The activity functions, for `proxyActivities<Activities>()`. */
export type Activities = ReturnType<typeof createActivities>;
