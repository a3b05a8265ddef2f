/**
 * The Slack messages both sides share: the worker's deliveries post them, the inbox's interactions route reads
 * their controls back and rewrites them. The incoming-webhook form, the bot's interactive message, its thread
 * replies and resolved form, the ids and references its controls carry, and the bot's Web API client. Node only;
 * loads no Slack package until a client is made (`@slack/types` gives its Block Kit types).
 */
export {
  MAX_BUTTONS,
  MAX_CHECKBOXES,
  editableInput,
  interactiveMessage,
  plain,
  staticMessage,
  threadReply,
  type SlackBotMessage,
} from './slack-blocks';
export {
  SLACK_ACTIONS,
  SLACK_LIMITS,
  decodeRef,
  encodeRef,
  isIndex,
  jsonObjectOf,
  questionBlockId,
  type SlackActionRef,
} from './slack-controls';
export {
  SLACK_API_URL,
  checkSlackApiUrl,
  loadSlackWebApi,
  slackBotSettingsFromEnv,
  slackWebClient,
  type SlackBotSettings,
} from './slack-client';
export {
  SECTION_TEXT_LIMIT,
  changedEffect,
  escapeMrkdwn,
  slackMessage,
  truncate,
  type SlackMessage,
  type SlackMessageEvent,
} from './slack-message';
