export {
  UserInteractionError,
  formatToolError,
  type UserInteractionErrorCode,
} from './user-interaction-error';
export { QuestionOperationError, type QuestionOperationErrorCode } from './question-operation-error';
export { UserInteractionService, type UserInteractionProvider } from './user-interaction-service';
export { InMemoryUserInteraction, type InMemoryPendingQuestion } from './in-memory-user-interaction';
