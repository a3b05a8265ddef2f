/**
 * The Slack interactions route the inbox serves: signed requests verified, clicks dispatched and recorded, modals
 * opened and submitted, messages rewritten, refusals told, and the names answers are recorded under. Node only.
 * The messages themselves, which the worker posts too, are in `src/slack-messages`.
 */
export {
  SLACK_INTERACTIONS_PATH,
  createSlackInteractions,
  type SlackInteractions,
  type SlackInteractionsOptions,
} from './slack-interactions';
export { INPUT_BLOCK, REASON_BLOCK, SLACK_VIEWS, STOP_BLOCK, STOP_VALUE, textBlockId } from './slack-modals';
export type { SlackAnswering } from './slack-recorder';
export { slackInteractionSettingsFromEnv, type SlackInteractionSettings } from './slack-settings';
export { SlackUserNames, type SlackUserNamesOptions } from './slack-users';
