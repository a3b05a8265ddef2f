/**
 * Operators' policies: deadlines, reminders, escalation, audience and the two-person rule.
 *
 * Dependency-free on purpose, like every file of this folder: workflow code runs in Temporal's deterministic
 * sandbox and imports it, so it must never pull in Node built-ins or the Temporal client and worker packages.
 */

import type { QuestionAudience } from './question';

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
