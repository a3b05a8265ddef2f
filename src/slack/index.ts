/**
 * The Slack surface: interactive messages people answer in, the inbox route Slack posts their clicks to, and the
 * bot's client. Node only. The worker's deliveries import `slack-blocks` and `slack-client` directly, so a
 * worker never loads `@slack/bolt` (which only the route's signature check needs).
 */
export {
  MAX_BUTTONS,
  MAX_CHECKBOXES,
  SLACK_ACTIONS,
  SLACK_LIMITS,
  SLACK_VIEWS,
  interactiveMessage,
  staticMessage,
  threadReply,
  type SlackBotMessage,
} from './slack-blocks';
export {
  SLACK_API_URL,
  slackBotSettingsFromEnv,
  slackWebClient,
  type SlackBotSettings,
} from './slack-client';
export {
  SLACK_INTERACTIONS_PATH,
  createSlackInteractions,
  type SlackAnswering,
  type SlackInteractions,
  type SlackInteractionsOptions,
} from './slack-interactions';
export { slackMessage, type SlackMessage } from './slack-message';
export { slackInteractionSettingsFromEnv, type SlackInteractionSettings } from './slack-settings';
export { SlackUserNames, type SlackUserNamesOptions } from './slack-users';
