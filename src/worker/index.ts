/** The worker that runs the question workflows and their webhook activities. */
export {
  createAskUserWorker,
  payloadConverterPath,
  workflowsPath,
  workflowsWithWorkerDefaultsPath,
  type AskUserWorkerOptions,
} from './worker';
