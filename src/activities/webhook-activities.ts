/**
 * Webhook notifications: the side effects of a durable question. Built by a factory over their
 * dependencies (the fetch function, the configured URLs), so tests can pass their own.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { definedFields, errorText } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';
import { inboxLink } from '../question/inbox-link';
import {
  checkPoliciesOption,
  isEmptyPolicy,
  policyFor,
  type CheckedPolicies,
  type WorkerQuestionDefaults,
} from '../question/question-policy';
import type { NotificationPosted, WebhookEvent } from '../question/webhook-event';
import {
  parseHttpUrl,
  parseWebhookTarget,
  slackBotTarget,
  validateWebhookUrls,
} from '../question/webhook-target';
import {
  SLACK_API_URL,
  checkSlackApiUrl,
  slackBotSettingsFromEnv,
  type SlackBotSettings,
} from '../slack-messages';
import type { QuestionPolicies } from '../types';
import { createSlackBotDelivery } from './slack-bot-delivery';
import { postWebhook } from './webhook-post';

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

/** The worker's own targets: its webhook URLs, and its bot's channel. */
function workerTargets(options: WebhookActivityOptions): string[] {
  const channel = options.slack?.channel;
  const bot = channel === undefined ? [] : [slackBotTarget(channel)];
  return [...new Set([...(options.webhookUrls ?? []), ...bot])];
}

/** Whether a target is the bot's, which only a worker with a bot token can post to. */
function isSlackBotTarget(target: string): boolean {
  const read = parseWebhookTarget(target);
  return read.ok && read.target.format === 'slack-bot';
}

/**
 * Checks the settings as the worker starts, so a typo fails then, not at delivery: the targets, the inbox URL,
 * the bot, and that every `slack-bot:` target (the worker's own and its policies' escalations) has a bot to post.
 */
function checkSettings(
  options: WebhookActivityOptions,
  urls: readonly string[],
  policies?: CheckedPolicies,
): void {
  validateWebhookUrls(urls);
  if (options.inboxUrl !== undefined) {
    const read = parseHttpUrl(options.inboxUrl);
    if (!read.ok) {
      throw UserInteractionError.invalidSetting(
        `inbox URL ${JSON.stringify(options.inboxUrl)}: ${read.reason}`,
      );
    }
  }
  if (options.slack !== undefined) {
    if (options.slack.botToken.trim() === '') {
      throw UserInteractionError.invalidSetting('slack.botToken: must not be empty');
    }
    try {
      checkSlackApiUrl(options.slack.apiUrl ?? SLACK_API_URL);
    } catch (error) {
      throw UserInteractionError.invalidSetting(errorText(error));
    }
    return;
  }
  const escalations = policies === undefined ? [] : [policies.base, ...policies.agents.values()];
  const targets = [...urls, ...escalations.flatMap((policy) => policy.escalateTo ?? [])];
  if (targets.some(isSlackBotTarget)) {
    throw UserInteractionError.invalidSetting(
      'slack-bot: targets need a bot token (ASK_USER_SLACK_BOT_TOKEN, or webhooks.slack.botToken)',
    );
  }
}

/**
 * Whether a worker with these settings hands its questions anything (webhook URLs, a policy for some agent):
 * only then do its questions run the local activity that fetches them. Call with settings already checked by
 * {@link createActivities}.
 */
export function hasQuestionDefaults(options: WebhookActivityOptions, policy?: QuestionPolicies): boolean {
  if (workerTargets(options).length > 0) return true;
  if (policy === undefined) return false;
  const checked = checkPoliciesOption(policy, 'createAskUserWorker');
  return !isEmptyPolicy(checked.base) || [...checked.agents.values()].some((one) => !isEmptyPolicy(one));
}

/**
 * Creates the activities the worker registers.
 *
 * @param policy the worker's question policies, handed to each question as it starts
 * @throws UserInteractionError `INVALID_OPTIONS` naming the setting or the policy field that is wrong
 */
export function createActivities(options: WebhookActivityOptions = {}, policy?: QuestionPolicies) {
  const urls = workerTargets(options);
  const policies = policy === undefined ? undefined : checkPoliciesOption(policy, 'createAskUserWorker');
  checkSettings(options, urls, policies);
  const { inboxUrl } = options;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const post = { fetch: options.fetch ?? fetch, secret: options.webhookSecret, timeoutMs };
  const slackBot = options.slack === undefined ? undefined : createSlackBotDelivery(options.slack, timeoutMs);

  return {
    /**
     * The worker's webhook URLs and its policy for the asking agent; run as a local activity when a question
     * starts, so both are in the question's history.
     */
    async webhookTargets(agentId?: string): Promise<WorkerQuestionDefaults> {
      return definedFields({ webhookUrls: urls, policy: policyFor(policies, agentId) });
    },

    /**
     * POSTs one notification, or posts it as the Slack bot for a `slack-bot:` target (then `posted` is the
     * message a later notification threads under or updates). Network errors and 5xx are retried by Temporal
     * with backoff; a target that cannot be read is refused for good.
     */
    async deliverWebhook(input: {
      url: string;
      payload: WebhookEvent;
    }): Promise<{ status: number; posted?: NotificationPosted }> {
      const event: WebhookEvent =
        inboxUrl === undefined
          ? input.payload
          : { ...input.payload, link: inboxLink(inboxUrl, input.payload.workflowId) };
      const read = parseWebhookTarget(input.url);
      if (!read.ok) throw ApplicationFailure.nonRetryable(`${input.url}: ${read.reason}`, 'WEBHOOK_REJECTED');
      const { target } = read;
      if (target.format !== 'slack-bot') return { status: await postWebhook(input.url, target, event, post) };
      if (slackBot === undefined) {
        throw ApplicationFailure.nonRetryable(
          `${input.url}: this worker has no Slack bot token (ASK_USER_SLACK_BOT_TOKEN)`,
          'SLACK_NOT_CONFIGURED',
        );
      }
      const posted = await slackBot(input.url, target.channel, event);
      return posted === undefined ? { status: 200 } : { status: 200, posted };
    },
  };
}

/** The activity functions, for `proxyActivities<Activities>()`. */
export type Activities = ReturnType<typeof createActivities>;
