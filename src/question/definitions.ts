/**
 * Names of the durable question's workflow, messages and task queue: the wire contract shared by the workflow,
 * the client provider, the CLI, the inbox and the stock Temporal CLI. Workflow-safe (imports only
 * `@temporalio/workflow` definitions and the shared types).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  ApprovalDecisionType,
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  DecideInput,
  DeclineInput,
  ExtendDeadlineInput,
  QuestionAudience,
  QuestionOutcome,
  QuestionRecord,
  SubmitAnswerInput,
} from '../types';

import type { NotificationPosted } from './webhook-event';

export { ASK_USER_QUESTION_WORKFLOW_TYPE, DEFAULT_TASK_QUEUE, WORKFLOW_ID_PREFIX } from './names';

/**
 * The question workflow's signature, as a client or a parent workflow starts it by its type name: the agent
 * side never imports the workflow itself, which lives with the worker.
 */
export type QuestionWorkflow = (
  input: AskUserQuestionWorkflowInput,
) => Promise<AskUserQuestionWorkflowResult>;

/** Signal `answer`: fire-and-forget; an invalid answer is recorded and ignored, the question keeps waiting. */
export const answerSignal = defineSignal<[SubmitAnswerInput]>('answer');

/**
 * Update `submitAnswer`: validated before it is recorded; returns the recorded outcome (the record without
 * its questions). Refuses late answers.
 */
export const submitAnswerUpdate = defineUpdate<QuestionOutcome, [SubmitAnswerInput]>('submitAnswer');

/** Update `decline`: an answerer refuses to answer; the agent sees `ASK_CANCELLED`. */
export const declineUpdate = defineUpdate<QuestionOutcome, [DeclineInput]>('decline');

/**
 * Update `extendDeadline`: an operator moves the question's deadline by a duration, later (`2h`) or earlier
 * (`-30m`); a question with no deadline gets one, counted from now. Returns the outcome with the new
 * `expiresAt`. Refused once the question is resolved.
 */
export const extendDeadlineUpdate = defineUpdate<QuestionOutcome, [ExtendDeadlineInput]>('extendDeadline');

/**
 * Update `decide`: a decision on a pending approval (`approve`, `edit` with `input`, `reject` with an optional
 * `reason`, `respond` with `text`). Validated before it is recorded, an edit against the tool's input schema;
 * refused once decided, naming who decided and when. Returns the recorded outcome.
 */
export const decideUpdate = defineUpdate<QuestionOutcome, [DecideInput]>('decide');

/**
 * Signal `notificationPosted`: a webhook delivery reports the chat message it posted for the question (Slack's
 * channel and `ts`), so that later notifications reach the same message. Sent by the delivery workflow.
 */
export const notificationPostedSignal = defineSignal<[NotificationPosted]>('notificationPosted');

/** Query `getQuestion`: the full record (questions, status, timestamps, agent, answer, who answered). */
export const getQuestionQuery = defineQuery<QuestionRecord>('getQuestion');

/** Memo keys set on every question, so lists work from visibility alone, with no worker running. */
export interface QuestionMemo {
  /** Short title: the first question's header or text, truncated; `Approve <tool>` for an approval. */
  title: string;
  /** `approval` for an approval of a tool call; absent for questions. */
  kind?: 'approval';
  /** An approval's tool. */
  toolName?: string;
  /** Who may answer (the policy's `audience`): set at start, or as the worker's policy is applied. */
  audience?: QuestionAudience;
  /** An approval's decision, written as it closes. */
  decision?: ApprovalDecisionType;
  questionCount: number;
  /**
   * How the question ended, written as it closes when that is not `answered`. Absent while it waits and once
   * answered: the execution's status tells those (running, completed), so the start and the commonest close
   * write nothing for it. The time it was asked is the execution's start time.
   */
  status?: QuestionRecord['status'];
  resolvedAt?: string;
  /** The deadline, while the question has one: set at start from its policy, and at every `extendDeadline`. */
  expiresAt?: string;
  agentId?: string;
  sessionId?: string;
  toolCallId?: string;
  /**
   * Fingerprint of the questions (`questionsFingerprint`): a re-ask with the same tool call id is compared
   * against it in one lookup, to re-attach (same questions) or refuse with `ASK_CONFLICT` (different ones).
   */
  fingerprint?: string;
}
