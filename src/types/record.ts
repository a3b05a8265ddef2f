/**
 * A question's workflow: its input, its record (what the `getQuestion` query returns), what its updates
 * report and what it returns.
 *
 * Dependency-free on purpose, like every file of this folder: workflow code runs in Temporal's deterministic
 * sandbox and imports it, so it must never pull in Node built-ins or the Temporal client and worker packages.
 */

import type {
  ApprovalDecision,
  ApprovalGrant,
  ApprovalSubject,
  GivenApproval,
  GivenRejection,
} from './approval';
import type { PolicyDuration, ResolvedQuestionPolicy } from './policy';
import type {
  AskUserAgent,
  AskUserQuestion,
  AskUserQuestionAnswer,
  QuestionAudience,
  QuestionStatus,
} from './question';

/** Input of `askUserQuestionWorkflow`. Timestamps are ISO-8601 strings so the record survives JSON. */
export interface AskUserQuestionWorkflowInput {
  /** The questions; empty for an approval. */
  questions: AskUserQuestion[];
  /** Present for an approval of a tool call instead of questions. */
  approval?: ApprovalSubject;
  agent?: AskUserAgent;
  toolCallId?: string;
  /** Webhook URLs notified when the question is pending and when it resolves. Absent: the worker's own. */
  webhookUrls?: string[];
  /** The asker's policy for this question. Its fields win over the worker's. */
  policy?: ResolvedQuestionPolicy;
  /**
   * `false`: the question takes nothing from its worker's own settings (webhook URLs, policy), and never runs
   * the local activity that fetches them. Absent: it takes them on a worker that has some; on any other worker
   * it costs what a bare signal wait costs. The choice is recorded for replay.
   */
  workerDefaults?: false;
  /**
   * The standing grant that covers this approval, as the agent's grants workflow answered the provider's check:
   * the approval is recorded approved by it as the workflow starts, with no person.
   */
  grant?: ApprovalGrant;
}

/** Argument of the `extendDeadline` update. */
export interface ExtendDeadlineInput {
  /**
   * How far to move the deadline: later (`2h`) or earlier (`-30m`). A question with no deadline gets one,
   * counted from now.
   */
  by: PolicyDuration;
  /** Free-form name of whoever changed it. */
  extendedBy?: string;
}

/** One change of a question's deadline, kept in its record. */
export interface DeadlineChange {
  changedAt: string;
  /** The deadline before the change; absent when the question had none. */
  from?: string;
  to: string;
  extendedBy?: string;
}

/** An answer that arrived by signal but broke the answer rules: kept for the record, never applied. */
export interface RejectedAnswer {
  receivedAt: string;
  answeredBy?: string;
  reason: string;
  /** The answer's `answerId`, when its sender gave one. */
  answerId?: string;
}

/**
 * An answer the server holds for a question that no worker has validated yet (it arrived as the `answer` signal
 * while none ran): read from the question's history, taken or refused when a worker next runs the question.
 */
export interface UnvalidatedAnswer {
  receivedAt: string;
  answeredBy?: string;
  answerId?: string;
}

/** A standing grant that covered an approval but did not decide it: its id, and why (`<field>: <reason>`). */
export interface GrantNotUsed {
  id: string;
  reason: string;
}

/** Everything known about one question; what the `getQuestion` query returns and the updates report. */
export interface QuestionRecord {
  /** The questions; empty for an approval. */
  questions: AskUserQuestion[];
  /**
   * For an approval: the tool call, with its original input. Its status is `answered` once someone decided,
   * `expired` when its deadline decided.
   */
  approval?: ApprovalSubject;
  /** An approval's decision: who, when, which, and the edited input of an `edit`. */
  decision?: ApprovalDecision;
  /**
   * A standing grant that covered the call but did not decide it, and why, naming the field: the policy's
   * two-person rule or audience, the grant's expiry, or a decision recorded first.
   */
  grantNotUsed?: GrantNotUsed;
  /** Who may answer or decide (its policy's `audience`); absent: anyone. */
  audience?: QuestionAudience;
  /** An approval under a policy's `requiredApprovals` above 1: how many distinct people must approve it. */
  requiredApprovals?: number;
  /** The approvals given so far toward `requiredApprovals`, oldest first (kept once the call is decided). */
  approvals?: GivenApproval[];
  /** An approval under a policy's `requiredRejections` above 1: how many distinct people must reject it. */
  requiredRejections?: number;
  /** The rejections given so far toward `requiredRejections`, oldest first (kept once the call is decided). */
  rejections?: GivenRejection[];
  status: QuestionStatus;
  agent?: AskUserAgent;
  toolCallId?: string;
  askedAt: string;
  resolvedAt?: string;
  answer?: AskUserQuestionAnswer;
  answeredBy?: string;
  declineReason?: string;
  declinedBy?: string;
  /** Deadline as an ISO-8601 timestamp, when the question can expire. */
  expiresAt?: string;
  /** Every change of the deadline through `extendDeadline`, oldest first (the last 20). */
  deadlineChanges?: DeadlineChange[];
  /** How many reminders went out (policy `remindEvery`). */
  remindersSent?: number;
  /** When the escalation went out (policy `escalateAfter`). */
  escalatedAt?: string;
  rejectedAnswers: RejectedAnswer[];
  /** The `answerId` of the recorded answer, when its sender gave one. */
  answerId?: string;
  /**
   * Set by the ops client, never by the workflow: answers received while no worker ran, not yet taken or
   * refused (read from the history when no worker answers the question's query).
   */
  unvalidatedAnswers?: UnvalidatedAnswer[];
  /** Set by the ops client, never by the workflow: no worker runs the question now (none answered its query). */
  noWorker?: { taskQueue: string };
}

/**
 * An answer recorded while no worker took it: the server holds it durably (as the `answer` signal), and the
 * question's workflow takes it, or refuses it, when a worker next runs. A refusal then stays in the record's
 * `rejectedAnswers` under the same `answerId`.
 */
export interface AnswerAwaitingWorker {
  answerId: string;
  /** When it was sent, ISO-8601. */
  receivedAt: string;
  /** The task queue no worker took it from. */
  taskQueue: string;
}

/**
 * What the `submitAnswer` and `decline` updates return: the record without its questions, which the caller
 * already has and which would otherwise be stored in the history a second time (up to megabytes). An answer
 * that no worker took in time returns the record as the server holds it, still pending, with `awaitingWorker`.
 */
export type QuestionOutcome = Omit<QuestionRecord, 'questions'> & { awaitingWorker?: AnswerAwaitingWorker };

/** What the workflow returns when it completes. Cancellation ends the workflow Canceled instead. */
export type AskUserQuestionWorkflowResult = (
  | {
      status: 'answered';
      answer: AskUserQuestionAnswer;
      answeredBy?: string;
      /** The answer's `answerId`, when its sender gave one. */
      answerId?: string;
      resolvedAt: string;
    }
  | { status: 'declined'; reason?: string; declinedBy?: string; resolvedAt: string }
  | { status: 'expired'; resolvedAt: string; /** The deadline, human-readable (`30m`). */ after: string }
  /** An approval's end, however it came (a person, its deadline, a decline). */
  | {
      status: 'decided';
      decision: ApprovalDecision;
      resolvedAt: string;
      /** Under the two-person rule: the count, and the approvals given (a closed record is read from here). */
      requiredApprovals?: number;
      approvals?: GivenApproval[];
      requiredRejections?: number;
      rejections?: GivenRejection[];
      /** A standing grant that covered the call and did not decide it, and why (as the record says). */
      grantNotUsed?: GrantNotUsed;
    }
) & {
  /**
   * The refused answers that carried an `answerId`, when there were any: kept in the result so that a refusal
   * taken in the question's last task (a late answer recorded while no worker ran) still reaches its sender,
   * who reads the closed record from the history.
   */
  rejectedAnswers?: RejectedAnswer[];
};
