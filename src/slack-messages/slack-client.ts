/**
 * The bot's Slack Web API client, as the worker (posting) and the inbox (answering) both make it, and the
 * settings both read from the environment.
 *
 * `@slack/web-api` is loaded when the first client is made, not when this module is: a worker whose questions
 * never reach Slack, and an inbox without Slack settings, never load the SDK.
 */
import type * as SlackWebApi from '@slack/web-api';
import type { WebClient } from '@slack/web-api';
import { parseHttpUrl } from '../question/webhook-target';

/** Slack's Web API, the default of {@link SlackBotSettings.apiUrl}. */
export const SLACK_API_URL = 'https://slack.com/api/';

/** The bot: its token and, for tests and proxies, the Web API's address. */
export interface SlackBotSettings {
  /** A bot token (`xoxb-…`) with the `chat:write` and `users:read` scopes. */
  botToken: string;
  /** Base URL of the Web API. Default {@link SLACK_API_URL}. */
  apiUrl?: string;
}

/** Options of {@link slackWebClient}. */
export interface SlackWebClientOptions {
  /**
   * Retries of a failed call. The worker passes 0: Temporal retries its deliveries with backoff, and a client
   * that retries for half an hour (the SDK's default) would outlive the activity's timeout.
   */
  retries: number;
  /** Per-call timeout in milliseconds. */
  timeoutMs: number;
}

/** The API URL with a trailing slash; throws a clear error for one that is not http(s). */
export function checkSlackApiUrl(url: string): string {
  const read = parseHttpUrl(url);
  if (!read.ok) throw new Error(`Slack API URL ${JSON.stringify(url)}: ${read.reason}`);
  const { href } = read.url;
  return href.endsWith('/') ? href : `${href}/`;
}

/** The Slack Web API package, loaded on first use. */
export async function loadSlackWebApi(): Promise<typeof SlackWebApi> {
  return await import('@slack/web-api');
}

/** A `WebClient` for the bot. */
export async function slackWebClient(
  settings: SlackBotSettings,
  options: SlackWebClientOptions,
): Promise<WebClient> {
  const { LogLevel, WebClient } = await loadSlackWebApi();
  return new WebClient(settings.botToken, {
    slackApiUrl: checkSlackApiUrl(settings.apiUrl ?? SLACK_API_URL),
    retryConfig: { retries: options.retries, factor: 2, minTimeout: 200, maxTimeout: 1000 },
    // A rate-limited call fails at once: the caller decides (Temporal backs off, a click is told to retry).
    rejectRateLimitedCalls: options.retries === 0,
    timeout: options.timeoutMs,
    logLevel: LogLevel.ERROR,
    // Method names only: a value that reads as an absolute URL never sends the token elsewhere.
    allowAbsoluteUrls: false,
  });
}

/** The bot's settings from `ASK_USER_SLACK_BOT_TOKEN` and `ASK_USER_SLACK_API_URL`, or `undefined` without a token. */
export function slackBotSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): SlackBotSettings | undefined {
  const botToken = env.ASK_USER_SLACK_BOT_TOKEN?.trim();
  if (!botToken) return undefined;
  const apiUrl = env.ASK_USER_SLACK_API_URL?.trim();
  return apiUrl ? { botToken, apiUrl } : { botToken };
}
