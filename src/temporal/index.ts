export { TemporalUserInteraction, type TemporalUserInteractionOptions } from './temporal-user-interaction';
export {
  createAskUserWorker,
  workflowsPath,
  workflowsWithWorkerDefaultsPath,
  type AskUserWorkerOptions,
} from './worker';
export {
  QuestionClient,
  alreadyResolvedError,
  toWorkflowId,
  type QuestionClientOptions,
  type QuestionListFilter,
  type QuestionSummary,
} from './question-client';
export { connectToTemporal, type ConnectOptions, type TemporalConnection } from './connect';
export {
  loadTemporalSettings,
  taskQueueFromEnv,
  type LoadTemporalSettingsOptions,
  type TemporalSettings,
} from './connection-config';
