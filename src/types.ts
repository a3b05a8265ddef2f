/**
 * Types shared by every side of the project: the tool, the providers, the workflow, the activities, the CLI.
 *
 * This module is dependency-free on purpose. Workflow code runs in Temporal's deterministic sandbox and may
 * import it, so it must never pull in Node built-ins or the Temporal client/worker packages.
 */

/** One choice offered to the human. */
export interface AskUserQuestionOption {
  label: string;
  description?: string;
}

/** One question, as the seam carries it (camelCase; the model's `multi_select` becomes `multiSelect`). */
export interface AskUserQuestion {
  id: string;
  question: string;
  header?: string;
  options?: AskUserQuestionOption[];
  multiSelect?: boolean;
}

/** Who is asking: the agent and, optionally, its session. Used to key durable questions. */
export interface AskUserAgent {
  id: string;
  sessionId?: string;
}

/** What a tool call hands to `UserInteraction.ask()`. */
export interface AskUserQuestionRequest {
  questions: AskUserQuestion[];
  agent?: AskUserAgent;
  toolCallId?: string;
  signal?: AbortSignal;
}

/** The human's answer to one question: option labels, or a free-form `custom` text that overrides them. */
export interface AskUserQuestionAnswerItem {
  id: string;
  selected: string[];
  custom?: string;
}

/** The human's answers, one per question, in the order asked. */
export interface AskUserQuestionAnswer {
  answers: AskUserQuestionAnswerItem[];
}

/** A JSON Schema (draft 2020-12 or earlier) as plain JSON: what an edited tool input is checked against. */
export type JsonSchemaObject = Record<string, unknown>;

/** The tool call an approval is about: what the reviewer sees and decides on. */
export interface ApprovalSubject {
  /** The tool the agent wants to run. */
  toolName: string;
  /** The arguments the agent wants to run it with: any JSON value. */
  input: unknown;
  /** What the call does, in words, for the reviewer. */
  description?: string;
  /** The tool's input schema: an edited input must satisfy it. */
  inputSchema?: JsonSchemaObject;
  /**
   * What the agent does with an `edit`: runs the tool with the edited input (`run`, also when absent), or denies
   * the call and gives the model the edited input to call again with (`suggest`), where the framework runs a
   * call only with the model's own input (the AI SDK's and the OpenAI Agents SDK's approval flows). Set by the
   * hook that asks, so that whoever decides is told what an edit becomes.
   */
  onEdit?: 'run' | 'suggest';
  /**
   * Who asked for the call: the agent's owner, or the user of its session, as the code wrapping the tool knows
   * them (never the model). A policy's `forbidSelfApproval` refuses this identity's decisions.
   */
  requestedBy?: string;
}

/** One approval given toward a call's `requiredApprovals`: who, when, and what they approved. */
export interface GivenApproval {
  decidedBy: string;
  decidedAt: string;
  /** `edit` when the approver changed the input: every later approval must approve the same input. */
  type: 'approve' | 'edit';
  /** SHA-256 of the canonical JSON of the input approved (the asked input, or the edited one). */
  inputSha256: string;
  /** The edited input, on an `edit`. */
  input?: unknown;
}

/** One rejection given toward a call's `requiredRejections`, when an operator set more than one. */
export interface GivenRejection {
  decidedBy: string;
  decidedAt: string;
  type: 'reject' | 'respond';
  /** A rejection's reason. */
  reason?: string;
  /** A response's text. */
  text?: string;
}

/** What a tool call hands to `UserInteraction.requestApproval()`: keyed, like a question, by its tool call id. */
export interface ApprovalRequest extends ApprovalSubject {
  toolCallId: string;
  /**
   * Who may decide this call, over the policies' audience: set by the code that wraps the tool (a `drop_table`
   * call to the database team), never by the model.
   */
  audience?: QuestionAudience;
  agent?: AskUserAgent;
  signal?: AbortSignal;
}

/** The four decisions, in LangChain's words: run as asked, run with other input, do not run, answer instead. */
export type ApprovalDecisionType = 'approve' | 'edit' | 'reject' | 'respond';

/**
 * Who may answer a question or decide an approval: the people named in `users`, and anyone in one of `groups`.
 * Set by an operator's policy or by the provider, never by the model. No audience: anyone may answer.
 */
export interface QuestionAudience {
  users?: string[];
  groups?: string[];
}

/** Argument of the `decide` update: one decision on a pending approval. */
export interface DecideInput {
  type: ApprovalDecisionType;
  /** `edit` only: the input the tool runs with instead. */
  input?: unknown;
  /** `reject` only, optional: why; the model reads it. */
  reason?: string;
  /** `respond` only: what the model reads in place of the tool's result. */
  text?: string;
  /** Free-form name of whoever decided. */
  decidedBy?: string;
  /** The decider's groups, as the surface that authenticated them knows them: checked against the audience. */
  groups?: string[];
  /** `reject` only, optional: also stop the agent's run (its turn), not only this call. */
  stop?: boolean;
}

/**
 * What a recorded decision is bound to: SHA-256 (hex) of the canonical JSON (RFC 8785) of the input as asked,
 * and of the input the agent may run (`approve`: the asked input; `edit`: the edited one). The hooks run a tool
 * only with input whose hashes match. Absent on decisions recorded before they existed.
 */
export interface DecisionInputHashes {
  requestedInputSha256?: string;
  /** `approve` and `edit` only. */
  inputSha256?: string;
}

/**
 * The standing grant that approved a call with no person (`decidedBy: "grant:<id>"`): its id, who granted it,
 * when, and until when it covered calls.
 */
export interface ApprovalGrant {
  id: string;
  grantedBy: string;
  grantedAt: string;
  expiresAt: string;
}

/** A decision as recorded, and as the agent receives it. */
export type ApprovalDecision = DecisionInputHashes &
  (
    | { type: 'approve'; decidedBy?: string; decidedAt: string; grant?: ApprovalGrant }
    | { type: 'edit'; input: unknown; decidedBy?: string; decidedAt: string }
    | { type: 'reject'; reason?: string; stop?: boolean; decidedBy?: string; decidedAt: string }
    | { type: 'respond'; text: string; decidedBy?: string; decidedAt: string }
  );

/** The seam: anything that can put questions to a human and return the answer. */
export interface UserInteraction {
  ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer>;
  /**
   * Waits for a human's decision on a tool call. Optional, so that a provider written before approvals still
   * fits the seam; the shipped providers all have it.
   */
  requestApproval?(request: ApprovalRequest): Promise<ApprovalDecision>;
}

/** Lifecycle of a durable question. */
export type QuestionStatus = 'pending' | 'answered' | 'declined' | 'cancelled' | 'expired';

/** Argument of the `answer` signal and the `submitAnswer` update. */
export interface SubmitAnswerInput {
  answers: AskUserQuestionAnswerItem[];
  /** Free-form name of whoever answered (an ops person, a script). */
  answeredBy?: string;
  /** The answerer's groups, as the surface that authenticated them knows them: checked against the audience. */
  groups?: string[];
  /**
   * The answer's own id, chosen by its sender: one answer sent twice (as an update no worker took in time, then
   * as the `answer` signal) is recorded once, and its refusal, if it comes later, is found by this id.
   */
  answerId?: string;
}

/** Argument of the `decline` update. */
export interface DeclineInput {
  reason?: string;
  declinedBy?: string;
  /** The decliner's groups: checked against the audience. */
  groups?: string[];
}

/**
 * A duration in an operator's policy: a whole number of milliseconds, or text made of a number and a unit
 * (`ms`, `s`, `m`, `h`, `d`), such as `90s`, `30m`, `2h`, `1d` or `1h30m`.
 */
export type PolicyDuration = number | string;

/**
 * What an unanswered question becomes at its deadline: `error` (the agent's call fails with `ASK_EXPIRED`) or
 * `recommended` (it is answered with each question's first option marked Recommended, a question without one
 * skipped, and recorded with `answeredBy: "policy:expired"`).
 *
 * An approval at its deadline is rejected (`decidedBy: "policy:expired"`), whatever this says, except for
 * `approve`, which approves it: only an operator's setting can approve a call nobody looked at. On a question,
 * `approve` means `error`.
 */
export type ExpiryOutcome = 'error' | 'recommended' | 'approve';

/**
 * How pending questions are handled over time. Set by operators on the provider and on the worker, never by
 * the model: nothing of it is in the tool's description or schema.
 */
export interface QuestionPolicy {
  /** The question's deadline, counted from when it was asked. Absent: no deadline. */
  expireAfter?: PolicyDuration;
  /** What the deadline does. Default `error`. */
  onExpiry?: ExpiryOutcome;
  /** While the question is pending, a `question.reminder` notification goes to its webhooks this often. */
  remindEvery?: PolicyDuration;
  /** At most this many reminders (1–100). Default 10. */
  maxReminders?: number;
  /** Once, this long after the question was asked, a `question.escalated` notification goes to `escalateTo`. */
  escalateAfter?: PolicyDuration;
  /** Webhook URLs that get the escalation, and only it. Needed with `escalateAfter`. */
  escalateTo?: string[];
  /** Who may answer. Absent: anyone who can reach a surface. */
  audience?: QuestionAudience;
  /**
   * Approvals only: how many distinct people must approve a call (1–10) before it runs. Default 1. One
   * rejection (or response) rejects at once, whatever the count, unless `requiredRejections` says otherwise.
   */
  requiredApprovals?: number;
  /**
   * Approvals only: how many distinct people must reject (or respond to) a call (1–10) before it is denied.
   * Default 1: one "no" denies.
   */
  requiredRejections?: number;
  /** Approvals only: the identity that asked (the request's `requestedBy`) may not decide its own call. */
  forbidSelfApproval?: boolean;
}

/**
 * A policy for every question, with overrides by agent id. A field an agent's entry sets replaces the same
 * field of the policy; the others are kept.
 */
export interface QuestionPolicies extends QuestionPolicy {
  agents?: Record<string, QuestionPolicy>;
}

/**
 * A policy as a question's workflow reads it: checked, durations in milliseconds, one agent's overrides
 * applied. Absent fields are not set at this level.
 */
export interface ResolvedQuestionPolicy {
  expireAfterMs?: number;
  onExpiry?: ExpiryOutcome;
  remindEveryMs?: number;
  maxReminders?: number;
  escalateAfterMs?: number;
  escalateTo?: string[];
  audience?: QuestionAudience;
  requiredApprovals?: number;
  requiredRejections?: number;
  forbidSelfApproval?: boolean;
}

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
  /** A standing grant that covered the call but may not decide it under the policy (the two-person rule), and why. */
  grantNotUsed?: { id: string; reason: string };
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
    }
) & {
  /**
   * The refused answers that carried an `answerId`, when there were any: kept in the result so that a refusal
   * taken in the question's last task (a late answer recorded while no worker ran) still reaches its sender,
   * who reads the closed record from the history.
   */
  rejectedAnswers?: RejectedAnswer[];
};
