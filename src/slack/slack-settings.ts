/**
 * The inbox's Slack settings from the environment: interactions are served when both the signing secret and
 * the bot token are set.
 */
import { slackBotSettingsFromEnv, type SlackBotSettings } from '../slack-messages';

/** What `ask-user inbox` and `ask-user dev` need to serve Slack's interactions. */
export interface SlackInteractionSettings {
  signingSecret: string;
  bot: SlackBotSettings;
}

/**
 * Reads `ASK_USER_SLACK_SIGNING_SECRET`, `ASK_USER_SLACK_BOT_TOKEN` and `ASK_USER_SLACK_API_URL`. Neither set:
 * `undefined` (no Slack). One without the other is a mistake, named.
 *
 * @throws Error naming the variable that is missing
 */
export function slackInteractionSettingsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): SlackInteractionSettings | undefined {
  const signingSecret = env.ASK_USER_SLACK_SIGNING_SECRET?.trim();
  const bot = slackBotSettingsFromEnv(env);
  if (!signingSecret) return undefined;
  if (bot === undefined) {
    throw new Error(
      'ASK_USER_SLACK_SIGNING_SECRET is set but ASK_USER_SLACK_BOT_TOKEN is not: Slack interactions need the bot token to update messages',
    );
  }
  return { signingSecret, bot };
}
