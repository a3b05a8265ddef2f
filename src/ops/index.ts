/**
 * The answering side: the ops client that lists, reads, answers, declines and extends questions, the one
 * listing it pages through (with the questions assigned to someone), the watcher of questions appearing and
 * resolving, batches of decisions, and the audit export.
 */
export { alreadyResolvedError } from './answer-awaiting-worker';
export {
  QuestionClient,
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
export {
  BATCH_ACTIONS,
  MAX_BATCH_ITEMS,
  runBatch,
  selectPending,
  type BatchAction,
  type BatchFilter,
  type BatchItemResult,
  type BatchRefusal,
  type BatchRequest,
  type BatchResult,
} from './batch-decisions';
export { auditLines, type AuditAction, type AuditExportOptions, type AuditLine } from './audit-export';
export { AUDIT_FORMATS, auditHeader, auditText, type AuditFormat } from './audit-format';
export { GrantClient, type GrantScope, type ListedGrant } from './grant-client';
