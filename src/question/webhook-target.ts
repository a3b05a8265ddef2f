/**
 * Notification targets: the one reader of what may be written wherever notifications go (a worker's and a
 * provider's webhook URLs, `ASK_USER_WEBHOOK_URLS`, a policy's `escalateTo`). The provider and the policy check
 * refuse a bad target with its reason, and the worker's delivery reads the same target to choose how it posts,
 * so what one side accepts the other can deliver.
 *
 * Dependency-free and workflow-safe: the policy check runs inside the workflow sandbox (which has `URL`).
 */
import { UserInteractionError } from '../interaction/user-interaction-error';

/** Prefix of a target the worker's Slack bot posts to: `slack-bot:C0123ABCD` (a channel id, or `#name`). */
export const SLACK_BOT_TARGET_PREFIX = 'slack-bot:';

/** Prefix of a URL that wants Slack's incoming-webhook format, e.g. `slack+https://chat.example/hook`. */
export const SLACK_URL_PREFIX = 'slack+';

/** A Slack channel id or name, as `chat.postMessage` takes it. */
const SLACK_CHANNEL = /^#?[\w.-]{1,80}$/;

/**
 * Where a notification goes and in which form:
 * - `json`: a POST of the `WebhookEvent` itself to `url`;
 * - `slack`: a POST of Slack's incoming-webhook form to `url` (a `https://hooks.slack.com/...` URL, or any URL
 *   written with the `slack+` prefix, for Slack-compatible receivers; `url` is without the prefix);
 * - `slack-bot`: an interactive message the worker's Slack bot posts to `channel`.
 */
export type WebhookTarget =
  | { readonly format: 'json' | 'slack'; readonly url: string }
  | { readonly format: 'slack-bot'; readonly channel: string };

/** A target read from text, or why it cannot be one. */
export type WebhookTargetResult =
  { readonly ok: true; readonly target: WebhookTarget } | { readonly ok: false; readonly reason: string };

/**
 * Reads a configured target. The reasons are the words every surface shows after the field's name.
 *
 * @example
 * parseWebhookTarget('slack-bot:C0ONCALL'); // { ok: true, target: { format: 'slack-bot', channel: 'C0ONCALL' } }
 * parseWebhookTarget('ftp://files.example'); // { ok: false, reason: 'must use http or https' }
 */
export function parseWebhookTarget(configured: unknown): WebhookTargetResult {
  if (typeof configured !== 'string') {
    return { ok: false, reason: 'must be a webhook URL or slack-bot:<channel>' };
  }
  if (configured.startsWith(SLACK_BOT_TARGET_PREFIX)) {
    const channel = configured.slice(SLACK_BOT_TARGET_PREFIX.length);
    return SLACK_CHANNEL.test(channel)
      ? { ok: true, target: { format: 'slack-bot', channel } }
      : { ok: false, reason: 'must name a Slack channel, e.g. slack-bot:C0123ABCD' };
  }
  const slackForm = configured.startsWith(SLACK_URL_PREFIX);
  const url = slackForm ? configured.slice(SLACK_URL_PREFIX.length) : configured;
  const read = parseHttpUrl(url);
  if (!read.ok) return read;
  const format = slackForm || read.url.hostname === 'hooks.slack.com' ? 'slack' : 'json';
  return { ok: true, target: { format, url } };
}

/**
 * Reads an http(s) URL (a webhook's, the inbox's, Slack's API), or says why it is not one.
 *
 * @example
 * parseHttpUrl('inbox.example'); // { ok: false, reason: 'not a valid URL' }
 */
export function parseHttpUrl(text: string): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: 'must use http or https' };
  return { ok: true, url };
}

/**
 * Reads a configured target, throwing for one that cannot be.
 *
 * @throws UserInteractionError `INVALID_OPTIONS`: `webhook URL "<target>": <reason>`
 */
export function webhookTarget(configured: string): WebhookTarget {
  const read = parseWebhookTarget(configured);
  if (read.ok) return read.target;
  throw UserInteractionError.invalidSetting(`webhook URL ${JSON.stringify(configured)}: ${read.reason}`);
}

/**
 * Checks a list of targets, so a typo fails where it is configured, not at delivery.
 *
 * @throws UserInteractionError `INVALID_OPTIONS` naming the first target that is wrong and why
 */
export function validateWebhookUrls(urls: readonly string[]): void {
  for (const url of urls) webhookTarget(url);
}

/** The target that posts to a Slack channel through the worker's bot. */
export function slackBotTarget(channel: string): string {
  return `${SLACK_BOT_TARGET_PREFIX}${channel}`;
}
