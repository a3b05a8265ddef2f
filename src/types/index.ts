/**
 * Types shared by every side of the project: the tool, the providers, the workflow, the activities, the CLI.
 * One file per concern; this one is what the rest of `src/` imports, and holds the seam itself.
 *
 * Dependency-free on purpose: workflow code runs in Temporal's deterministic sandbox and may import it, so it
 * must never pull in Node built-ins or the Temporal client/worker packages.
 */
import type { ApprovalDecision, ApprovalRequest } from './approval';
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from './question';

export type {
  AskUserQuestionOption,
  AskUserQuestion,
  AskUserAgent,
  AskUserQuestionRequest,
  AskUserQuestionAnswerItem,
  AskUserQuestionAnswer,
  JsonSchemaObject,
  QuestionAudience,
  QuestionStatus,
  SubmitAnswerInput,
  DeclineInput,
} from './question';
export type {
  ApprovalSubject,
  GivenApproval,
  GivenRejection,
  ApprovalRequest,
  ApprovalDecisionType,
  DecideInput,
  DecisionInputHashes,
  ApprovalGrant,
  ApprovalDecision,
} from './approval';
export type {
  PolicyDuration,
  ExpiryOutcome,
  QuestionPolicy,
  QuestionPolicies,
  ResolvedQuestionPolicy,
} from './policy';
export type {
  AskUserQuestionWorkflowInput,
  ExtendDeadlineInput,
  DeadlineChange,
  RejectedAnswer,
  UnvalidatedAnswer,
  QuestionRecord,
  AnswerAwaitingWorker,
  QuestionOutcome,
  AskUserQuestionWorkflowResult,
} from './record';

/** The seam: anything that can put questions to a human and return the answer. */
export interface UserInteraction {
  ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer>;
  /**
   * Waits for a human's decision on a tool call. Optional, so that a provider written before approvals still
   * fits the seam; the shipped providers all have it.
   */
  requestApproval?(request: ApprovalRequest): Promise<ApprovalDecision>;
}
