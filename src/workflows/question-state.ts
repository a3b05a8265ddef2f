/**
 * `QuestionState`: one durable question, as a plain class. It decides which answers, decisions and declines are
 * taken (`question-validators.ts`, `approval-progress.ts`) and what the question's result is, and keeps its
 * schedule (`question-schedule.ts`) and Web UI details (`question-details.ts`); the workflow function only
 * wires Temporal's handlers, timers and cleanup to it. Pure and deterministic (every timestamp is passed in).
 */
import { definedFields } from '../common';
import type {
  ApprovalSubject,
  AskUserQuestionAnswer,
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  DecideInput,
  DeclineInput,
  QuestionOutcome,
  QuestionRecord,
  QuestionStatus,
  RejectedAnswer,
  ResolvedQuestionPolicy,
} from '../types';
import { POLICY_EXPIRED_ANSWERER, mergePolicies } from '../question/question-policy';
import {
  declineTaken,
  decisionTaken,
  refuseIfResolved,
  signalVerdict,
  submittedAnswer,
} from './question-validators';
import { currentDetails, statusDetails } from './question-details';
import {
  MAX_REJECTED_ANSWERS,
  ValidatedByUpdate,
  answerIdOf,
  declineDecision,
  declineReason,
  recordedDecision,
  stringField,
} from './question-rules';
import {
  deadlineExtensionOf,
  expiryDecision,
  formatDuration,
  nextWake,
  recommendedAnswer,
  recordDeadlineChange,
  type DeadlineExtension,
  type QuestionWake,
} from './question-schedule';
import { snapshotOf, type QuestionSnapshot } from './question-snapshot';
import { countsToDecide, refuseUnderRule, showRequiredApprovals } from './approval-progress';
import { workflowResult } from './question-result';

/** One durable question's state and rules: a question's, or an approval's. */
export class QuestionState {
  private state: QuestionRecord;
  private readonly askedAtMs: number;
  private policy: ResolvedQuestionPolicy;
  private deadlineMs: number | undefined;
  private lastReminderAtMs: number | undefined;
  private deadlineVersion = 0;
  /** The answer the running `submitAnswer` update's validator checked, for its handler. */
  private readonly validatedAnswers = new ValidatedByUpdate<AskUserQuestionAnswer>();
  /** The decision the running `decide` update's validator checked, for its handler. */
  private readonly validatedDecisions = new ValidatedByUpdate<DecideInput>();

  /** @param askedAt the workflow's start time */
  constructor(input: AskUserQuestionWorkflowInput, askedAt: Date) {
    this.state = {
      questions: input.questions,
      status: 'pending',
      askedAt: askedAt.toISOString(),
      rejectedAnswers: [],
      ...definedFields({ approval: input.approval, agent: input.agent, toolCallId: input.toolCallId }),
    };
    this.askedAtMs = askedAt.getTime();
    this.policy = mergePolicies(input.policy);
    this.deadlineFromPolicy();
    this.recordFromPolicy();
  }

  /**
   * The question as its previous run left it, for a run that continues it: the record, policy, deadline and
   * reminder schedule of `snapshot`, the questions of `input`. Nothing is re-applied (the worker's policy is in
   * the snapshot's already), so the question goes on exactly where it was.
   *
   * @throws ApplicationFailure `INVALID_ARGS` naming the field, for a snapshot this code did not write (the
   *   argument can be given by hand, with the stock Temporal CLI).
   */
  static resume(input: AskUserQuestionWorkflowInput, snapshot: unknown): QuestionState {
    const checked = snapshotOf(snapshot);
    const question = new QuestionState(input, new Date(checked.record.askedAt));
    question.state = {
      ...checked.record,
      questions: input.questions,
      ...definedFields({ approval: input.approval }),
    };
    question.policy = checked.policy;
    question.deadlineMs = checked.deadlineMs;
    question.lastReminderAtMs = checked.lastReminderAtMs;
    question.deadlineVersion = checked.deadlineVersion;
    return question;
  }

  /** What the next run needs to go on exactly where this one is (see {@link QuestionState.resume}). */
  snapshot(): QuestionSnapshot {
    return {
      record: this.outcome(),
      policy: this.policy,
      deadlineVersion: this.deadlineVersion,
      ...definedFields({ deadlineMs: this.deadlineMs, lastReminderAtMs: this.lastReminderAtMs }),
    };
  }

  /**
   * Puts the worker's policy beneath the question's own: each field the question's policy leaves unset comes
   * from the worker's. Called once, before the first wait.
   */
  applyWorkerPolicy(worker: ResolvedQuestionPolicy | undefined): void {
    if (worker === undefined) return;
    this.policy = mergePolicies(worker, this.policy);
    this.deadlineFromPolicy();
    this.recordFromPolicy();
  }

  /** The policy in force: the worker's, the question's own over it. */
  get effectivePolicy(): ResolvedQuestionPolicy {
    return this.policy;
  }

  /** The deadline (epoch milliseconds), if the question has one. */
  get deadline(): number | undefined {
    return this.deadlineMs;
  }

  /** Goes up by one at every deadline change: a timer armed for an older deadline is stale. */
  get scheduleVersion(): number {
    return this.deadlineVersion;
  }

  /** The full record, as the `getQuestion` query returns it. */
  get record(): QuestionRecord {
    return this.state;
  }

  get status(): QuestionStatus {
    return this.state.status;
  }

  get isPending(): boolean {
    return this.state.status === 'pending';
  }

  /** The tool call, when this is an approval rather than questions. */
  get approval(): ApprovalSubject | undefined {
    return this.state.approval;
  }

  /** The status in words (`Waiting for an answer`, `Answered`, ...; `Rejected`, ... for an approval). */
  get details(): string {
    return statusDetails(this.state);
  }

  /** The Web UI's current details: the status, with the deadline while pending and the policy's answer. */
  get currentDetails(): string {
    return currentDetails(this.state);
  }

  /** What the updates return: the record without its questions, which the caller already has. */
  outcome(): QuestionOutcome {
    const { questions: _questions, ...outcome } = this.state;
    return outcome;
  }

  /**
   * The `submitAnswer` validator: throws `ALREADY_RESOLVED` (naming who answered and when) or `BAD_ANSWER`
   * (naming the field and the broken rule). Returns the normalised answer.
   */
  checkSubmit(input: unknown, updateId?: string): AskUserQuestionAnswer {
    const answer = submittedAnswer(this.state, input);
    this.validatedAnswers.keep(updateId, answer);
    return answer;
  }

  /**
   * The `submitAnswer` handler: records a valid answer. Whether the question is still open is checked again
   * (the state may have moved on); the answer rules are not, when this update's validator just ran them.
   */
  submit(input: unknown, now: string, updateId?: string): QuestionOutcome {
    const answer = this.checkedOnce(this.validatedAnswers, updateId, () => this.checkSubmit(input));
    this.recordAnswer(answer, stringField(input, 'answeredBy'), now, answerIdOf(input));
    return this.outcome();
  }

  /**
   * The `answer` signal: a signal cannot be refused to its sender, so an invalid or late one is kept in
   * `rejectedAnswers` with the reason (and its `answerId`), and the question keeps waiting. An answer whose
   * `answerId` was already taken or refused is the same answer sent again (an update no worker took in time, then
   * this signal): it is ignored. Returns whether the answer was taken; `onRefused` hears of a new refusal.
   */
  receiveSignal(input: unknown, now: string, onRefused?: (refusal: RejectedAnswer) => void): boolean {
    const verdict = signalVerdict(this.state, input);
    if (verdict.kind === 'seen') return false;
    if (verdict.kind === 'taken') {
      this.recordAnswer(verdict.answer, verdict.answeredBy, now, verdict.answerId);
      return true;
    }
    const { answeredBy, reason, answerId } = verdict;
    const refusal: RejectedAnswer = { receivedAt: now, ...definedFields({ answeredBy }), reason };
    if (answerId !== undefined) refusal.answerId = answerId;
    this.state.rejectedAnswers.push(refusal);
    if (this.state.rejectedAnswers.length > MAX_REJECTED_ANSWERS) this.state.rejectedAnswers.shift();
    onRefused?.(refusal);
    return false;
  }

  /**
   * The `decline` validator: refuses a late decline, and input that is not `{ reason?, declinedBy? }`; on an
   * approval, what the two-person rule refuses of the rejection it records.
   */
  checkDecline(input: unknown): DeclineInput {
    const decline = declineTaken(this.state, input);
    if (this.state.approval !== undefined) refuseUnderRule(this.state, this.policy, declineDecision(decline));
    return decline;
  }

  /**
   * The `decide` validator: refuses a decision on questions, a late one (naming who decided and when) and one
   * that breaks the decision rules (`BAD_ANSWER` naming the field; an edit that breaks the tool's input schema
   * names the path), and what the two-person rule refuses (`approval-progress.ts`). Returns the checked decision.
   */
  checkDecide(input: unknown, updateId?: string): DecideInput {
    const decision = decisionTaken(this.state, input);
    refuseUnderRule(this.state, this.policy, decision);
    this.validatedDecisions.keep(updateId, decision);
    return decision;
  }

  /**
   * The `decide` handler: records the decision, once; a decision short of the two-person rule's count is kept
   * in `approvals` or `rejections`, the call still pending. As for `submit`, the rules are not run again when
   * this update's validator just ran them.
   */
  decide(input: unknown, now: string, updateId?: string): QuestionOutcome {
    const decision = this.checkedOnce(this.validatedDecisions, updateId, () => this.checkDecide(input));
    this.countDecision(decision, now);
    return this.outcome();
  }

  /**
   * The `decline` handler: the agent's call fails with `ASK_CANCELLED` and the reason. Declining an approval
   * rejects it (counted like any rejection), so every surface's decline is a safe refusal of the call.
   */
  decline(input: unknown, now: string): QuestionOutcome {
    const decline = this.checkDecline(input);
    if (this.state.approval !== undefined) {
      this.countDecision(declineDecision(decline), now);
      return this.outcome();
    }
    const reason = declineReason(decline);
    if (reason !== undefined) this.state.declineReason = reason;
    if (typeof decline.declinedBy === 'string') this.state.declinedBy = decline.declinedBy;
    this.resolve('declined', now);
    return this.outcome();
  }

  /**
   * The `extendDeadline` validator: refuses a late change, and input that is not `{ by, extendedBy? }` with a
   * non-zero duration that leaves the deadline after the question was asked. Returns the new deadline.
   *
   * @param now the current time, ISO-8601: a question with no deadline gets one counted from it
   */
  checkExtend(input: unknown, now: string): DeadlineExtension {
    refuseIfResolved(this.state);
    return deadlineExtensionOf(input, { askedAtMs: this.askedAtMs, deadlineMs: this.deadlineMs }, now);
  }

  /**
   * The `extendDeadline` handler: moves the deadline, later or earlier, and keeps the change in the record. A
   * deadline moved into the past expires the question at once.
   */
  extend(input: unknown, now: string): QuestionOutcome {
    const extension = this.checkExtend(input, now);
    recordDeadlineChange(this.state, extension, now);
    this.deadlineMs = extension.to;
    this.state.expiresAt = new Date(extension.to).toISOString();
    this.deadlineVersion += 1;
    return this.outcome();
  }

  /** The question's next timer while it is pending (see `nextWake` in `question-schedule.ts`). */
  nextWake(): QuestionWake | undefined {
    if (!this.isPending) return undefined;
    return nextWake({
      record: this.state,
      policy: this.policy,
      askedAtMs: this.askedAtMs,
      deadlineMs: this.deadlineMs,
      lastReminderAtMs: this.lastReminderAtMs,
    });
  }

  /** Records a reminder going out; returns its number (1 for the first). */
  remind(now: string): number {
    this.state.remindersSent = (this.state.remindersSent ?? 0) + 1;
    this.lastReminderAtMs = Date.parse(now);
    return this.state.remindersSent;
  }

  /** Records the escalation going out; returns the targets it goes to. */
  escalate(now: string): string[] {
    this.state.escalatedAt = now;
    return this.policy.escalateTo ?? [];
  }

  /**
   * The deadline passed with no answer: the question expires, or, with `onExpiry: 'recommended'`, is answered
   * with the recommended options as `policy:expired`. An approval is decided by `expiryDecision`.
   */
  expire(now: string): void {
    if (!this.isPending) return;
    if (this.state.approval !== undefined) {
      this.recordDecision(expiryDecision(this.policy, this.expiredAfter()), now, 'expired');
    } else if (this.policy.onExpiry === 'recommended') {
      this.recordAnswer(recommendedAnswer(this.state.questions), POLICY_EXPIRED_ANSWERER, now);
    } else {
      this.resolve('expired', now);
    }
  }

  /**
   * The question was cancelled (the agent's turn was aborted). An answer or decline recorded before stands:
   * its sender was already told it was recorded. Returns whether the question really ends cancelled.
   */
  cancel(now: string): boolean {
    if (!this.isPending) return false;
    this.resolve('cancelled', now);
    return true;
  }

  /** The workflow's result once the question is answered, declined or expired. */
  result(now: string): AskUserQuestionWorkflowResult {
    return workflowResult(this.state, now, this.expiredAfter());
  }

  /** The deadline, counted from when the question was asked, in words (`30m`). */
  private expiredAfter(): string {
    return formatDuration((this.deadlineMs ?? this.askedAtMs) - this.askedAtMs);
  }

  /** Sets the deadline from the policy's `expireAfterMs`, unless an `extendDeadline` already moved it. */
  private deadlineFromPolicy(): void {
    if (this.deadlineVersion > 0) return;
    const { expireAfterMs } = this.policy;
    this.deadlineMs = expireAfterMs === undefined ? undefined : this.askedAtMs + expireAfterMs;
    if (this.deadlineMs === undefined) delete this.state.expiresAt;
    else this.state.expiresAt = new Date(this.deadlineMs).toISOString();
  }

  /** Copies the policy's audience and required approvals into the record, where every surface reads them. */
  private recordFromPolicy(): void {
    if (this.policy.audience === undefined) delete this.state.audience;
    else this.state.audience = this.policy.audience;
    showRequiredApprovals(this.state, this.policy);
  }

  /** What this update's validator checked, with the question still open; else `check` run now (on replay). */
  private checkedOnce<T>(validated: ValidatedByUpdate<T>, updateId: string | undefined, check: () => T): T {
    const value = validated.take(updateId);
    if (value === undefined) return check();
    refuseIfResolved(this.state);
    return value;
  }

  /** Records a person's decision once the two-person rule's count for its side is met (at once, by default). */
  private countDecision(input: DecideInput, now: string): void {
    if (countsToDecide(this.state, this.policy, input, now)) this.recordDecision(input, now, 'answered');
  }

  private recordDecision(input: DecideInput, now: string, status: 'answered' | 'expired'): void {
    this.state.decision = recordedDecision(input, now, this.state.approval?.input);
    this.resolve(status, now);
  }

  private recordAnswer(
    answer: AskUserQuestionAnswer,
    by: string | undefined,
    now: string,
    answerId?: string,
  ): void {
    this.state.answer = answer;
    if (by !== undefined) this.state.answeredBy = by;
    if (answerId !== undefined) this.state.answerId = answerId;
    this.resolve('answered', now);
  }

  private resolve(status: QuestionStatus, now: string): void {
    this.state.status = status;
    this.state.resolvedAt = now;
  }
}
