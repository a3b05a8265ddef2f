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

/** The seam: anything that can put questions to a human and return the answer. */
export interface UserInteraction {
  ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer>;
}

/** Lifecycle of a durable question. */
export type QuestionStatus = 'pending' | 'answered' | 'declined' | 'cancelled' | 'expired';

/** Argument of the `answer` signal and the `submitAnswer` update. */
export interface SubmitAnswerInput {
  answers: AskUserQuestionAnswerItem[];
  /** Free-form name of whoever answered (an ops person, a script). */
  answeredBy?: string;
}

/** Argument of the `decline` update. */
export interface DeclineInput {
  reason?: string;
  declinedBy?: string;
}

/** Input of `askUserQuestionWorkflow`. Timestamps are ISO-8601 strings so the record survives JSON. */
export interface AskUserQuestionWorkflowInput {
  questions: AskUserQuestion[];
  agent?: AskUserAgent;
  toolCallId?: string;
  /** Optional deadline after which the question expires, as milliseconds. Absent means wait forever. */
  timeoutMs?: number;
  /** Webhook URLs notified when the question is pending and when it resolves. Absent: the worker's own. */
  webhookUrls?: string[];
}

/** An answer that arrived by signal but broke the answer rules: kept for the record, never applied. */
export interface RejectedAnswer {
  receivedAt: string;
  answeredBy?: string;
  reason: string;
}

/** Everything known about one question; what the `getQuestion` query returns and the updates report. */
export interface QuestionRecord {
  questions: AskUserQuestion[];
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
  rejectedAnswers: RejectedAnswer[];
}

/**
 * What the `submitAnswer` and `decline` updates return: the record without its questions, which the caller
 * already has and which would otherwise be stored in the history a second time (up to megabytes).
 */
export type QuestionOutcome = Omit<QuestionRecord, 'questions'>;

/** What the workflow returns when it completes. Cancellation ends the workflow Canceled instead. */
export type AskUserQuestionWorkflowResult =
  | { status: 'answered'; answer: AskUserQuestionAnswer; answeredBy?: string; resolvedAt: string }
  | { status: 'declined'; reason?: string; declinedBy?: string; resolvedAt: string }
  | { status: 'expired'; resolvedAt: string; /** The deadline, human-readable (`30m`). */ after: string };
