/**
 * `durable-ask-user/workflow`: the workflow-safe entry point.
 *
 * Temporal runs workflow code in a deterministic sandbox where Node built-ins, the Temporal client and worker,
 * timers and `crypto` are off limits. Agents that are themselves workflows import from here, never from the
 * package root (which pulls in the client and the worker's native core).
 */
export {
  askUserQuestionAsChild,
  childWorkflowUserInteraction,
  type AskUserQuestionChildOptions,
} from './workflows/ask-user-question-child';
export { askUserQuestionWorkflow } from './workflows/ask-user-question-workflow';
export { webhookDeliveryWorkflow } from './workflows/webhook-delivery-workflow';
export {
  ASK_USER_QUESTION_WORKFLOW_TYPE,
  DEFAULT_TASK_QUEUE,
  WORKFLOW_ID_PREFIX,
  answerSignal,
  decideUpdate,
  declineUpdate,
  extendDeadlineUpdate,
  getQuestionQuery,
  submitAnswerUpdate,
} from './question/definitions';
export { questionWorkflowId } from './question/workflow-id';
export { checkAnswer, serializeAnswer, type AnswerCheck, type AnswerRule } from './answer/answer-rules';
export { AskUserError } from './interaction/ask-user-error';
export { UserInteractionError, formatToolError } from './interaction/user-interaction-error';
export type * from './types';
