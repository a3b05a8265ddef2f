/** The answering side: the ops client that lists, reads, answers, declines and extends questions. */
export {
  QuestionClient,
  alreadyResolvedError,
  toWorkflowId,
  type QuestionClientOptions,
  type QuestionListFilter,
  type QuestionSummary,
} from './question-client';
