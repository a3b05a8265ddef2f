export {
  createActivities,
  webhookOptionsFromEnv,
  type Activities,
  type SlackBotOptions,
  type WebhookActivityOptions,
} from './webhook-activities';
export { createGrantActivities } from './grant-activities';
