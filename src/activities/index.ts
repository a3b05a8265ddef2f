export {
  createActivities,
  validateWebhookUrls,
  webhookOptionsFromEnv,
  type Activities,
  type WebhookActivityOptions,
} from './webhook-activities';
