export { TemporalUserInteraction, type TemporalUserInteractionOptions } from './temporal-user-interaction';
export { createAskUserWorker, workflowsPath, type AskUserWorkerOptions } from './worker';
export {
  QuestionClient,
  QuestionOperationError,
  alreadyResolvedError,
  toWorkflowId,
  type QuestionListFilter,
  type QuestionOperationErrorCode,
  type QuestionSummary,
} from './question-client';
export {
  loadTemporalSettings,
  taskQueueFromEnv,
  type LoadTemporalSettingsOptions,
  type TemporalSettings,
} from './connection-config';
