/**
 * `durable-ask-user`: the `ask_user_question` tool, the user-interaction seam and its providers, and the
 * Temporal pieces that keep questions durable. This file is the complete public surface.
 */
export * from './tool';
export * from './interaction';
export * from './answer';
export * from './temporal';
export {
  createActivities,
  validateWebhookUrls,
  webhookOptionsFromEnv,
  type Activities,
  type WebhookActivityOptions,
} from './activities';
export type { WebhookEvent } from './workflows/webhook-event';
export {
  ASK_USER_QUESTION_WORKFLOW_TYPE,
  DEFAULT_TASK_QUEUE,
  FAILURE_TYPES,
  WORKFLOW_ID_PREFIX,
  answerSignal,
  declineUpdate,
  getQuestionQuery,
  submitAnswerUpdate,
  type QuestionMemo,
} from './workflows/definitions';
export { questionWorkflowId } from './workflows/workflow-id';
export { questionDetails, questionTitle } from './workflows/question-text';
export type * from './types';
