/**
 * The question model: what a tool call asks, who asks it, who may answer, and the answer.
 *
 * Dependency-free on purpose, like every file of this folder: workflow code runs in Temporal's deterministic
 * sandbox and imports it, so it must never pull in Node built-ins or the Temporal client and worker packages.
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

/**
 * Who may answer a question or decide an approval: the people named in `users`, and anyone in one of `groups`.
 * Set by an operator's policy or by the provider, never by the model. No audience: anyone may answer.
 */
export interface QuestionAudience {
  users?: string[];
  groups?: string[];
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
