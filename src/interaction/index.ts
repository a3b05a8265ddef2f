export { AskUserError } from './ask-user-error';
export {
  UserInteractionError,
  formatToolError,
  type UserInteractionErrorCode,
} from './user-interaction-error';
export { QuestionOperationError, type QuestionOperationErrorCode } from './question-operation-error';
export { UserInteractionService, type UserInteractionProvider } from './user-interaction-service';
export {
  InMemoryUserInteraction,
  type InMemoryPendingApproval,
  type InMemoryPendingQuestion,
} from './in-memory-user-interaction';
export { guardApprovalRequest } from './approval-request-guard';
