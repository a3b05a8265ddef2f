/**
 * `QuestionState`: the rules of one durable question, as a plain class. It decides which answers and declines
 * are taken, which are refused and why, what the question's result is, and, from its policy, when it expires
 * (and into what), when it reminds and escalates, and how an `extendDeadline` moves the deadline; the workflow
 * function only wires Temporal's handlers, timers and cleanup to it. Pure and deterministic (every timestamp is
 * passed in), so it is unit-tested without a server and runs unchanged in the workflow sandbox.
 */
import { checkAnswer, isRecommendedLabel } from '../answer/answer-rules';
import { answererGroups, audienceRefusal } from '../answer/audience-rules';
import { checkDecision } from '../answer/decision-rules';
import type {
  ApprovalDecision,
  ApprovalSubject,
  AskUserQuestion,
  AskUserQuestionAnswer,
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  DeadlineChange,
  DecideInput,
  DeclineInput,
  QuestionOutcome,
  QuestionRecord,
  QuestionStatus,
  RejectedAnswer,
  ResolvedQuestionPolicy,
} from '../types';
import { ALREADY_RESOLVED, BAD_ANSWER, FORBIDDEN, INVALID_ARGS, refusal } from '../question/failures';
import {
  DEFAULT_MAX_REMINDERS,
  MAX_POLICY_DURATION_MS,
  POLICY_ANSWERER_PREFIX,
  POLICY_EXPIRED_ANSWERER,
  mergePolicies,
  parseDuration,
} from '../question/question-policy';
import { decisionWords, resolvedReason } from '../question/question-text';
import { isUndecodablePayload } from '../answer/undecodable-payload';

/** Signals that broke the rules are kept for the record, but only this many, so state stays bounded. */
export const MAX_REJECTED_ANSWERS = 20;

/** Deadline changes kept in the record (the latest ones), so state stays bounded. */
export const MAX_DEADLINE_CHANGES = 20;

/** What the question's timer wakes it for. */
export type QuestionTimerReason = 'remind' | 'escalate' | 'expire';

/** The question's next timer: when (epoch milliseconds) and what is due then. */
export interface QuestionWake {
  at: number;
  due: QuestionTimerReason[];
}

/**
 * What a pending question hands the next run of its workflow when it continues as new: its record without the
 * questions (the next run gets the same input, which holds them) and what the record does not show: the policy
 * in force, with the worker's already beneath the question's own, the deadline, when the last reminder went out
 * and how many times the deadline was changed. A plain JSON object: it is the next run's second argument.
 */
export interface QuestionSnapshot {
  record: QuestionOutcome;
  policy: ResolvedQuestionPolicy;
  /** The deadline, epoch milliseconds. */
  deadlineMs?: number;
  /** When the last reminder went out, epoch milliseconds: the next is counted from it. */
  lastReminderAtMs?: number;
  /** How many times `extendDeadline` moved the deadline (the record keeps only the last 20 changes). */
  deadlineVersion: number;
}

/** A checked `extendDeadline`: the new deadline (epoch milliseconds) and who changed it. */
export interface DeadlineExtension {
  to: number;
  extendedBy?: string;
}

const RESERVED_ANSWERER_REASON = `answeredBy: names starting with "${POLICY_ANSWERER_PREFIX}" are kept for answers a question policy gives`;
const RESERVED_DECIDER_REASON = `decidedBy: names starting with "${POLICY_ANSWERER_PREFIX}" are kept for decisions a policy takes`;

/** Text shown as the workflow's current details in the Temporal Web UI, per status. */
const DETAILS_BY_STATUS: Record<QuestionStatus, string> = {
  pending: 'Waiting for an answer',
  answered: 'Answered',
  declined: 'Declined',
  cancelled: 'Cancelled',
  expired: 'Expired',
};

/** `30m`, `2h`, `1500ms`: the largest unit that divides the duration exactly. */
export function formatDuration(milliseconds: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1_000, 's'],
  ];
  for (const [size, unit] of units) {
    if (milliseconds >= size && milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return `${milliseconds}ms`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The answer the `recommended` expiry gives: each question's first option marked Recommended, and a question
 * without one skipped.
 */
export function recommendedAnswer(questions: readonly AskUserQuestion[]): AskUserQuestionAnswer {
  return {
    answers: questions.map((question) => {
      const recommended = question.options?.find((option) => isRecommendedLabel(option.label));
      return { id: question.id, selected: recommended === undefined ? [] : [recommended.label] };
    }),
  };
}

/** The Web UI's details of an approval, by how it was decided. */
function approvalDetails(record: QuestionRecord): string {
  if (record.status === 'pending') return 'Waiting for a decision';
  if (record.decision === undefined) return DETAILS_BY_STATUS[record.status];
  const words = decisionWords(record.decision);
  const text = `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
  return record.status === 'expired' ? `Expired: ${words}` : text;
}

/** One durable question's state and rules: a question's, or an approval's. */
export class QuestionState {
  private state: QuestionRecord;
  private readonly askedAtMs: number;
  private policy: ResolvedQuestionPolicy;
  private deadlineMs: number | undefined;
  private lastReminderAtMs: number | undefined;
  private deadlineVersion = 0;
  /** The answer the running update's validator checked, for its handler (see `submit`). */
  private validated: { updateId: string; answer: AskUserQuestionAnswer } | undefined;
  /** The decision the running `decide` update's validator checked, for its handler (see `decide`). */
  private validatedDecision: { updateId: string; decision: DecideInput } | undefined;

  /**
   * @param askedAt the workflow's start time. The question's own policy is `input.policy` over the
   *   `timeoutMs` of inputs written before policies existed.
   */
  constructor(input: AskUserQuestionWorkflowInput, askedAt: Date) {
    this.state = {
      questions: input.questions,
      status: 'pending',
      askedAt: askedAt.toISOString(),
      rejectedAnswers: [],
    };
    if (input.approval !== undefined) this.state.approval = input.approval;
    if (input.agent !== undefined) this.state.agent = input.agent;
    if (input.toolCallId !== undefined) this.state.toolCallId = input.toolCallId;
    this.askedAtMs = askedAt.getTime();
    this.policy = mergePolicies(
      input.timeoutMs === undefined ? undefined : { expireAfterMs: input.timeoutMs },
      input.policy,
    );
    this.deadlineFromPolicy();
    this.audienceFromPolicy();
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
    const record: QuestionRecord = { ...checked.record, questions: input.questions };
    if (input.approval !== undefined) record.approval = input.approval;
    question.state = record;
    question.policy = checked.policy;
    question.deadlineMs = checked.deadlineMs;
    question.lastReminderAtMs = checked.lastReminderAtMs;
    question.deadlineVersion = checked.deadlineVersion;
    return question;
  }

  /** What the next run needs to go on exactly where this one is (see {@link QuestionState.resume}). */
  snapshot(): QuestionSnapshot {
    const snapshot: QuestionSnapshot = {
      record: this.outcome(),
      policy: this.policy,
      deadlineVersion: this.deadlineVersion,
    };
    if (this.deadlineMs !== undefined) snapshot.deadlineMs = this.deadlineMs;
    if (this.lastReminderAtMs !== undefined) snapshot.lastReminderAtMs = this.lastReminderAtMs;
    return snapshot;
  }

  /**
   * Puts the worker's policy beneath the question's own: each field the question's policy leaves unset comes
   * from the worker's. Called once, before the first wait.
   */
  applyWorkerPolicy(worker: ResolvedQuestionPolicy | undefined): void {
    if (worker === undefined) return;
    this.policy = mergePolicies(worker, this.policy);
    this.deadlineFromPolicy();
    this.audienceFromPolicy();
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
    if (this.state.approval !== undefined) return approvalDetails(this.state);
    return DETAILS_BY_STATUS[this.state.status];
  }

  /** The Web UI's current details: the status, with the deadline while pending and the policy's answer. */
  get currentDetails(): string {
    if (this.isPending && this.state.expiresAt !== undefined) {
      return `${this.details} until ${this.state.expiresAt}`;
    }
    if (this.state.status === 'answered' && this.state.answeredBy === POLICY_EXPIRED_ANSWERER) {
      return 'Expired: answered with the recommended options';
    }
    return this.details;
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
    this.refuseIfResolved();
    if (this.state.approval !== undefined) throw refusal(BAD_ANSWER, this.notAQuestion(), 'approval');
    if (answeredByOf(input)?.startsWith(POLICY_ANSWERER_PREFIX) === true) {
      throw refusal(INVALID_ARGS, `invalid arguments: ${RESERVED_ANSWERER_REASON}`);
    }
    this.refuseOutsideAudience(input, answeredByOf(input), 'answer', 'answer');
    const checked = checkAnswer(this.state.questions, input);
    if (!checked.ok) throw refusal(BAD_ANSWER, checked.reason, checked.rule);
    this.validated = updateId === undefined ? undefined : { updateId, answer: checked.answer };
    return checked.answer;
  }

  /**
   * The `submitAnswer` handler: records a valid answer. Whether the question is still open is checked again
   * (the state may have moved on); the answer rules are not, when this update's validator just ran them.
   */
  submit(input: unknown, now: string, updateId?: string): QuestionOutcome {
    const validated = this.validated;
    this.validated = undefined;
    let answer: AskUserQuestionAnswer;
    if (validated !== undefined && updateId !== undefined && validated.updateId === updateId) {
      this.refuseIfResolved();
      answer = validated.answer;
    } else {
      answer = this.checkSubmit(input);
    }
    this.recordAnswer(answer, answeredByOf(input), now);
    return this.outcome();
  }

  /**
   * The `answer` signal: a signal cannot be refused to its sender, so an invalid or late one is kept in
   * `rejectedAnswers` with the reason, and the question keeps waiting. Returns whether the answer was taken.
   */
  receiveSignal(input: unknown, now: string): boolean {
    const answeredBy = answeredByOf(input);
    const refused =
      resolvedReason(this.state) ??
      (this.state.approval === undefined ? undefined : this.notAQuestion()) ??
      (answeredBy?.startsWith(POLICY_ANSWERER_PREFIX) === true ? RESERVED_ANSWERER_REASON : undefined) ??
      this.audienceProblem(input, answeredBy, 'answer', 'answer');
    const checked = refused === undefined ? checkAnswer(this.state.questions, input) : undefined;
    if (checked?.ok === true) {
      this.recordAnswer(checked.answer, answeredBy, now);
      return true;
    }
    const rejected: RejectedAnswer = {
      receivedAt: now,
      reason: refused ?? (checked as { reason: string }).reason,
    };
    if (answeredBy !== undefined) rejected.answeredBy = answeredBy;
    this.state.rejectedAnswers.push(rejected);
    if (this.state.rejectedAnswers.length > MAX_REJECTED_ANSWERS) this.state.rejectedAnswers.shift();
    return false;
  }

  /** The `decline` validator: refuses a late decline, and input that is not `{ reason?, declinedBy? }`. */
  checkDecline(input: unknown): DeclineInput {
    this.refuseIfResolved();
    if (input === undefined || input === null) {
      this.refuseOutsideAudience(undefined, undefined, 'decline', 'decline');
      return {};
    }
    if (isUndecodablePayload(input)) {
      throw refusal(INVALID_ARGS, `invalid arguments: decline: could not be decoded: ${input.undecodable}`);
    }
    if (!isPlainObject(input)) throw refusal(INVALID_ARGS, 'invalid arguments: decline: must be an object');
    for (const field of ['reason', 'declinedBy'] as const) {
      const value = input[field];
      if (value !== undefined && value !== null && typeof value !== 'string') {
        throw refusal(INVALID_ARGS, `invalid arguments: decline.${field}: must be a string`);
      }
    }
    const declinedBy = typeof input.declinedBy === 'string' ? input.declinedBy : undefined;
    this.refuseOutsideAudience(input, declinedBy, 'decline', 'decline');
    return input;
  }

  /**
   * The `decide` validator: refuses a decision on questions, a late one (naming who decided and when) and one
   * that breaks the decision rules (`BAD_ANSWER` naming the field; an edit that breaks the tool's input schema
   * names the path). Returns the checked decision.
   */
  checkDecide(input: unknown, updateId?: string): DecideInput {
    const subject = this.state.approval;
    if (subject === undefined) {
      throw refusal(
        INVALID_ARGS,
        'invalid arguments: decide: this is a question, not an approval: answer it',
      );
    }
    this.refuseIfResolved();
    if (isUndecodablePayload(input)) {
      throw refusal(INVALID_ARGS, `invalid arguments: decide: could not be decoded: ${input.undecodable}`);
    }
    if (isPlainObject(input) && typeof input.decidedBy === 'string') {
      if (input.decidedBy.startsWith(POLICY_ANSWERER_PREFIX)) {
        throw refusal(INVALID_ARGS, `invalid arguments: ${RESERVED_DECIDER_REASON}`);
      }
    }
    const decidedBy =
      isPlainObject(input) && typeof input.decidedBy === 'string' ? input.decidedBy : undefined;
    this.refuseOutsideAudience(input, decidedBy, 'decide', 'decision');
    const checked = checkDecision(subject, input);
    if (!checked.ok) throw refusal(BAD_ANSWER, checked.reason, checked.rule);
    this.validatedDecision = updateId === undefined ? undefined : { updateId, decision: checked.decision };
    return checked.decision;
  }

  /**
   * The `decide` handler: records the decision, once. As for `submit`, the rules are not run again when this
   * update's validator just ran them.
   */
  decide(input: unknown, now: string, updateId?: string): QuestionOutcome {
    const validated = this.validatedDecision;
    this.validatedDecision = undefined;
    let decision: DecideInput;
    if (validated !== undefined && updateId !== undefined && validated.updateId === updateId) {
      this.refuseIfResolved();
      decision = validated.decision;
    } else {
      decision = this.checkDecide(input);
    }
    this.recordDecision(decision, now, 'answered');
    return this.outcome();
  }

  /**
   * The `decline` handler: the agent's call fails with `ASK_CANCELLED` and the reason. Declining an approval
   * rejects it, with the reason, so that every surface's decline is a safe refusal of the tool call.
   */
  decline(input: unknown, now: string): QuestionOutcome {
    const decline = this.checkDecline(input);
    if (this.state.approval !== undefined) {
      const decision: DecideInput = { type: 'reject' };
      if (typeof decline.reason === 'string' && decline.reason.trim() !== '')
        decision.reason = decline.reason;
      if (typeof decline.declinedBy === 'string') decision.decidedBy = decline.declinedBy;
      this.recordDecision(decision, now, 'answered');
      return this.outcome();
    }
    if (typeof decline.reason === 'string' && decline.reason.trim() !== '') {
      this.state.declineReason = decline.reason;
    }
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
    this.refuseIfResolved();
    if (isUndecodablePayload(input)) {
      throw refusal(
        INVALID_ARGS,
        `invalid arguments: extendDeadline: could not be decoded: ${input.undecodable}`,
      );
    }
    if (!isPlainObject(input)) {
      throw refusal(
        INVALID_ARGS,
        'invalid arguments: extendDeadline: must be an object with a duration in by',
      );
    }
    const by = parseDuration(input.by, { signed: true });
    if (by === undefined) {
      throw refusal(
        INVALID_ARGS,
        'invalid arguments: extendDeadline.by: must be a duration such as 2h or -30m, or a whole number of milliseconds',
      );
    }
    if (by === 0) throw refusal(INVALID_ARGS, 'invalid arguments: extendDeadline.by: must not be zero');
    if (Math.abs(by) > MAX_POLICY_DURATION_MS) {
      throw refusal(INVALID_ARGS, 'invalid arguments: extendDeadline.by: must be at most 365d either way');
    }
    const extendedBy = input.extendedBy;
    if (extendedBy !== undefined && extendedBy !== null && typeof extendedBy !== 'string') {
      throw refusal(INVALID_ARGS, 'invalid arguments: extendDeadline.extendedBy: must be a string');
    }
    const to = (this.deadlineMs ?? Date.parse(now)) + by;
    if (to <= this.askedAtMs) {
      throw refusal(
        INVALID_ARGS,
        `invalid arguments: extendDeadline.by: the deadline would be ${new Date(to).toISOString()}, not after the question was asked (${this.state.askedAt})`,
      );
    }
    return typeof extendedBy === 'string' ? { to, extendedBy } : { to };
  }

  /**
   * The `extendDeadline` handler: moves the deadline, later or earlier, and keeps the change in the record. A
   * deadline moved into the past expires the question at once.
   */
  extend(input: unknown, now: string): QuestionOutcome {
    const extension = this.checkExtend(input, now);
    const to = new Date(extension.to).toISOString();
    const change: DeadlineChange = { changedAt: now, to };
    if (this.state.expiresAt !== undefined) change.from = this.state.expiresAt;
    if (extension.extendedBy !== undefined) change.extendedBy = extension.extendedBy;
    const changes = (this.state.deadlineChanges ??= []);
    changes.push(change);
    if (changes.length > MAX_DEADLINE_CHANGES) changes.shift();
    this.deadlineMs = extension.to;
    this.state.expiresAt = to;
    this.deadlineVersion += 1;
    return this.outcome();
  }

  /**
   * The question's next timer while it is pending: the earliest of its deadline, its next reminder and its
   * escalation, with everything due at that moment. A deadline due with other things wins: the question
   * resolves, and the resolved notification says so. `undefined` when nothing is scheduled.
   */
  nextWake(): QuestionWake | undefined {
    if (!this.isPending) return undefined;
    const candidates: [number, QuestionTimerReason][] = [];
    if (this.deadlineMs !== undefined) candidates.push([this.deadlineMs, 'expire']);
    const { remindEveryMs, escalateAfterMs, escalateTo } = this.policy;
    const maxReminders = this.policy.maxReminders ?? DEFAULT_MAX_REMINDERS;
    if (remindEveryMs !== undefined && (this.state.remindersSent ?? 0) < maxReminders) {
      // Counted from the last reminder sent, so reminders missed while no worker ran come as one, not a burst.
      candidates.push([(this.lastReminderAtMs ?? this.askedAtMs) + remindEveryMs, 'remind']);
    }
    if (
      escalateAfterMs !== undefined &&
      (escalateTo?.length ?? 0) > 0 &&
      this.state.escalatedAt === undefined
    ) {
      candidates.push([this.askedAtMs + escalateAfterMs, 'escalate']);
    }
    if (candidates.length === 0) return undefined;
    const at = Math.min(...candidates.map(([time]) => time));
    const due = candidates.filter(([time]) => time === at).map(([, reason]) => reason);
    return { at, due: due.includes('expire') ? ['expire'] : due };
  }

  /** Records a reminder going out; returns its number (1 for the first). */
  remind(now: string): number {
    const sent = (this.state.remindersSent ?? 0) + 1;
    this.state.remindersSent = sent;
    this.lastReminderAtMs = Date.parse(now);
    return sent;
  }

  /** Records the escalation going out; returns the URLs it goes to. */
  escalate(now: string): string[] {
    this.state.escalatedAt = now;
    return this.policy.escalateTo ?? [];
  }

  /**
   * The deadline passed with no answer: the question expires, or, with `onExpiry: 'recommended'`, is answered
   * with the recommended options as `policy:expired`.
   */
  expire(now: string): void {
    if (!this.isPending) return;
    if (this.state.approval !== undefined) {
      const after = formatDuration((this.deadlineMs ?? this.askedAtMs) - this.askedAtMs);
      const decision: DecideInput =
        this.policy.onExpiry === 'approve'
          ? { type: 'approve', decidedBy: POLICY_EXPIRED_ANSWERER }
          : {
              type: 'reject',
              reason: `nobody decided within ${after}, so the call was not approved`,
              decidedBy: POLICY_EXPIRED_ANSWERER,
            };
      this.recordDecision(decision, now, 'expired');
      return;
    }
    if (this.policy.onExpiry === 'recommended') {
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
    const resolvedAt = this.state.resolvedAt ?? now;
    if (this.state.decision !== undefined) {
      return { status: 'decided', decision: this.state.decision, resolvedAt };
    }
    switch (this.state.status) {
      case 'answered': {
        const result: AskUserQuestionWorkflowResult = {
          status: 'answered',
          answer: this.state.answer!,
          resolvedAt,
        };
        if (this.state.answeredBy !== undefined) result.answeredBy = this.state.answeredBy;
        return result;
      }
      case 'declined': {
        const result: AskUserQuestionWorkflowResult = { status: 'declined', resolvedAt };
        if (this.state.declineReason !== undefined) result.reason = this.state.declineReason;
        if (this.state.declinedBy !== undefined) result.declinedBy = this.state.declinedBy;
        return result;
      }
      default:
        return {
          status: 'expired',
          resolvedAt,
          after: formatDuration((this.deadlineMs ?? this.askedAtMs) - this.askedAtMs),
        };
    }
  }

  /** Sets the deadline from the policy's `expireAfterMs`, unless an `extendDeadline` already moved it. */
  private deadlineFromPolicy(): void {
    if (this.deadlineVersion > 0) return;
    const { expireAfterMs } = this.policy;
    this.deadlineMs = expireAfterMs === undefined ? undefined : this.askedAtMs + expireAfterMs;
    if (this.deadlineMs === undefined) delete this.state.expiresAt;
    else this.state.expiresAt = new Date(this.deadlineMs).toISOString();
  }

  /** Copies the policy's audience into the record, where every surface reads it. */
  private audienceFromPolicy(): void {
    if (this.policy.audience === undefined) delete this.state.audience;
    else this.state.audience = this.policy.audience;
  }

  /**
   * Why this answerer may not act: a malformed `groups` field, or a name and groups outside the audience.
   * `path` names the argument in a refusal (`answer.groups`).
   */
  private audienceProblem(
    input: unknown,
    name: string | undefined,
    act: string,
    path: string,
  ): string | undefined {
    const groups = answererGroups(input, path);
    if (!groups.ok) return `invalid arguments: ${groups.reason}`;
    return audienceRefusal(this.state.audience, name, groups.groups, act);
  }

  /** Throws `INVALID_ARGS` for malformed groups, `FORBIDDEN` for an answerer outside the audience. */
  private refuseOutsideAudience(input: unknown, name: string | undefined, act: string, path: string): void {
    const groups = answererGroups(input, path);
    if (!groups.ok) throw refusal(INVALID_ARGS, `invalid arguments: ${groups.reason}`);
    const refused = audienceRefusal(this.state.audience, name, groups.groups, act);
    if (refused !== undefined) throw refusal(FORBIDDEN, refused);
  }

  private refuseIfResolved(): void {
    const reason = resolvedReason(this.state);
    if (reason !== undefined) throw refusal(ALREADY_RESOLVED, reason);
  }

  /** What an answer to an approval is told. */
  private notAQuestion(): string {
    return `this is an approval of ${this.state.approval?.toolName ?? 'a tool call'}, not a question: decide it (update decide)`;
  }

  private recordDecision(input: DecideInput, now: string, status: 'answered' | 'expired'): void {
    const decidedBy = input.decidedBy === undefined ? {} : { decidedBy: input.decidedBy };
    let decision: ApprovalDecision;
    switch (input.type) {
      case 'approve':
        decision = { type: 'approve', ...decidedBy, decidedAt: now };
        break;
      case 'edit':
        decision = { type: 'edit', input: input.input, ...decidedBy, decidedAt: now };
        break;
      case 'reject':
        decision = {
          type: 'reject',
          ...(input.reason === undefined ? {} : { reason: input.reason }),
          ...decidedBy,
          decidedAt: now,
        };
        break;
      case 'respond':
        decision = { type: 'respond', text: input.text ?? '', ...decidedBy, decidedAt: now };
        break;
    }
    this.state.decision = decision;
    this.resolve(status, now);
  }

  private recordAnswer(answer: AskUserQuestionAnswer, answeredBy: string | undefined, now: string): void {
    this.state.answer = answer;
    if (answeredBy !== undefined) this.state.answeredBy = answeredBy;
    this.resolve('answered', now);
  }

  private resolve(status: QuestionStatus, now: string): void {
    this.state.status = status;
    this.state.resolvedAt = now;
  }
}

/** `INVALID_ARGS` naming the continuation's field. */
function badSnapshot(field: string, reason: string): ReturnType<typeof refusal> {
  const path = field === '' ? 'continuation.state' : `continuation.state.${field}`;
  return refusal(INVALID_ARGS, `invalid arguments: ${path}: ${reason}`);
}

function optionalTime(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw badSnapshot(field, 'must be epoch milliseconds');
  return value;
}

/**
 * A snapshot as {@link QuestionState.snapshot} writes it, checked field by field: only a pending question
 * continues, with its timestamps, its bounded lists and its policy in the shapes this code keeps.
 */
function snapshotOf(value: unknown): QuestionSnapshot {
  if (!isPlainObject(value)) throw badSnapshot('', 'must be an object');
  const { record, policy, deadlineVersion } = value;
  if (!isPlainObject(record)) throw badSnapshot('record', 'must be an object');
  if (record.status !== 'pending') throw badSnapshot('record.status', 'only a pending question continues');
  if (typeof record.askedAt !== 'string' || Number.isNaN(Date.parse(record.askedAt))) {
    throw badSnapshot('record.askedAt', 'must be an ISO-8601 timestamp');
  }
  const rejected = record.rejectedAnswers;
  if (!Array.isArray(rejected) || rejected.length > MAX_REJECTED_ANSWERS) {
    throw badSnapshot('record.rejectedAnswers', `must be a list of at most ${MAX_REJECTED_ANSWERS}`);
  }
  const changes = record.deadlineChanges;
  if (changes !== undefined && (!Array.isArray(changes) || changes.length > MAX_DEADLINE_CHANGES)) {
    throw badSnapshot('record.deadlineChanges', `must be a list of at most ${MAX_DEADLINE_CHANGES}`);
  }
  if (!isPlainObject(policy)) throw badSnapshot('policy', 'must be an object');
  if (typeof deadlineVersion !== 'number' || !Number.isSafeInteger(deadlineVersion) || deadlineVersion < 0) {
    throw badSnapshot('deadlineVersion', 'must be a whole number, 0 or more');
  }
  const snapshot: QuestionSnapshot = {
    record: record as unknown as QuestionOutcome,
    policy: policy,
    deadlineVersion,
  };
  const deadlineMs = optionalTime(value.deadlineMs, 'deadlineMs');
  if (deadlineMs !== undefined) snapshot.deadlineMs = deadlineMs;
  const lastReminderAtMs = optionalTime(value.lastReminderAtMs, 'lastReminderAtMs');
  if (lastReminderAtMs !== undefined) snapshot.lastReminderAtMs = lastReminderAtMs;
  return snapshot;
}

/** `answeredBy` when the input carries it as a string; anything else is ignored, never trusted. */
function answeredByOf(input: unknown): string | undefined {
  if (!isPlainObject(input)) return undefined;
  return typeof input.answeredBy === 'string' ? input.answeredBy : undefined;
}
