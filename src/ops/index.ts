/**
 * The answering side: the ops client that lists, reads, answers, declines and extends questions, the one
 * listing it pages through (with the questions assigned to someone), and the watcher of questions appearing and
 * resolving.
 */
export {
  QuestionClient,
  alreadyResolvedError,
  toWorkflowId,
  type QuestionClientOptions,
  type QuestionListFilter,
  type QuestionSummary,
} from './question-client';
export {
  MAX_PAGE_SIZE,
  QUESTION_INDEX_STATUSES,
  isAssignedTo,
  type Answerer,
  type QuestionIndexStatus,
  type QuestionPageOptions,
  type QuestionSummaryPage,
} from './question-listing';
export {
  QuestionWatcher,
  type QuestionEvent,
  type QuestionSubscription,
  type QuestionWatcherOptions,
} from './question-watcher';
