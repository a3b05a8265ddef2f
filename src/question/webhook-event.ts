import type { QuestionRecord } from '../types';

/**
 * Body of every webhook POST. `event` says what happened; `record` is the question as `getQuestion` returns
 * it. `workflowId` plus `event` (plus `reminder` for reminders) identifies a notification: receivers use it to
 * drop retried duplicates.
 *
 * `question.reminder` (policy `remindEvery`) goes to the question's webhooks while it is pending;
 * `question.escalated` (policy `escalateAfter`) goes once, to the escalation URLs only. An approval sends
 * `approval.pending` and `approval.decided` in place of `question.pending` and `question.resolved` (its
 * reminders and escalation are the question's), with the tool call in `record.approval` and the decision in
 * `record.decision`. Under the two-person rule, `approval.progress` goes out at each approval short of the count,
 * with the approvals so far in `record.approvals` and the count in `record.requiredApprovals`.
 *
 * `question.answer_refused` goes to the question's webhooks when an answer recorded while no worker ran (its
 * sender was told it waits for a worker) is refused once one runs: the refusal is the last of
 * `record.rejectedAnswers`, under the `answerId` its sender was given, and the question is still waiting.
 */
export interface WebhookEvent {
  event:
    | 'question.pending'
    | 'question.reminder'
    | 'question.escalated'
    | 'question.resolved'
    | 'question.answer_refused'
    | 'approval.pending'
    | 'approval.decided'
    | 'approval.progress';
  /** The reminder's number, 1 for the first: only on `question.reminder`. */
  reminder?: number;
  workflowId: string;
  runId: string;
  occurredAt: string;
  record: QuestionRecord;
  /**
   * The question's page in the ops inbox. Added by the delivering activity when the worker knows the inbox's
   * address (`ASK_USER_INBOX_URL`), so it is in the POST but never in the workflow's history.
   */
  link?: string;
  /**
   * Messages a chat target posted for this question (a Slack bot's `chat.postMessage`), as its delivery reported
   * them back through the `notificationPosted` signal: later notifications thread under them or update them.
   */
  posted?: NotificationPosted[];
}

/** A message a chat target posted for a question: where it is, so later notifications can find it. */
export interface NotificationPosted {
  /** The configured target that posted it. */
  target: string;
  channel: string;
  ts: string;
}

/** Input of `webhookDeliveryWorkflow`. */
export interface WebhookDeliveryInput {
  targets: string[];
  payload: WebhookEvent;
}
