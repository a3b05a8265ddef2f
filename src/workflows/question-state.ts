/**
 * `QuestionState`: the rules of one durable question, as a plain class. It decides which answers and declines
 * are taken, which are refused and why, and what the question's result is; the workflow function only wires
 * Temporal's handlers, timers and cleanup to it. Pure and deterministic (every timestamp is passed in), so it
 * is unit-tested without a server and runs unchanged in the workflow sandbox.
 */
import { checkAnswer } from '../answer/answer-rules';
import type {
  AskUserQuestionAnswer,
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  DeclineInput,
  QuestionOutcome,
  QuestionRecord,
  QuestionStatus,
  RejectedAnswer,
} from '../types';
import { ALREADY_RESOLVED, BAD_ANSWER, INVALID_ARGS, refusal } from './failures';
import { resolvedReason } from './question-text';
import { isUndecodablePayload } from './undecodable-payload';

/** Signals that broke the rules are kept for the record, but only this many, so state stays bounded. */
export const MAX_REJECTED_ANSWERS = 20;

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

/** One durable question's state and rules. */
export class QuestionState {
  private readonly state: QuestionRecord;

  /** @param askedAt the workflow's start time */
  constructor(
    input: AskUserQuestionWorkflowInput,
    askedAt: Date,
    private readonly timeoutMs: number | undefined = input.timeoutMs,
  ) {
    this.state = {
      questions: input.questions,
      status: 'pending',
      askedAt: askedAt.toISOString(),
      rejectedAnswers: [],
    };
    if (input.agent !== undefined) this.state.agent = input.agent;
    if (input.toolCallId !== undefined) this.state.toolCallId = input.toolCallId;
    if (timeoutMs !== undefined) {
      this.state.expiresAt = new Date(askedAt.getTime() + timeoutMs).toISOString();
    }
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

  /** Web UI current details for the present status. */
  get details(): string {
    return DETAILS_BY_STATUS[this.state.status];
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
  checkSubmit(input: unknown): AskUserQuestionAnswer {
    this.refuseIfResolved();
    const checked = checkAnswer(this.state.questions, input);
    if (!checked.ok) throw refusal(BAD_ANSWER, checked.reason, checked.rule);
    return checked.answer;
  }

  /** The `submitAnswer` handler: records a valid answer (checked again: the state may have moved on). */
  submit(input: unknown, now: string): QuestionOutcome {
    const answer = this.checkSubmit(input);
    this.recordAnswer(answer, answeredByOf(input), now);
    return this.outcome();
  }

  /**
   * The `answer` signal: a signal cannot be refused to its sender, so an invalid or late one is kept in
   * `rejectedAnswers` with the reason, and the question keeps waiting. Returns whether the answer was taken.
   */
  receiveSignal(input: unknown, now: string): boolean {
    const late = resolvedReason(this.state);
    const checked = late === undefined ? checkAnswer(this.state.questions, input) : undefined;
    if (checked?.ok === true) {
      this.recordAnswer(checked.answer, answeredByOf(input), now);
      return true;
    }
    const rejected: RejectedAnswer = { receivedAt: now, reason: late ?? (checked as { reason: string }).reason };
    const answeredBy = answeredByOf(input);
    if (answeredBy !== undefined) rejected.answeredBy = answeredBy;
    this.state.rejectedAnswers.push(rejected);
    if (this.state.rejectedAnswers.length > MAX_REJECTED_ANSWERS) this.state.rejectedAnswers.shift();
    return false;
  }

  /** The `decline` validator: refuses a late decline, and input that is not `{ reason?, declinedBy? }`. */
  checkDecline(input: unknown): DeclineInput {
    this.refuseIfResolved();
    if (input === undefined || input === null) return {};
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
    return input as DeclineInput;
  }

  /** The `decline` handler: the agent's call fails with `ASK_CANCELLED` and the reason. */
  decline(input: unknown, now: string): QuestionOutcome {
    const decline = this.checkDecline(input);
    if (typeof decline.reason === 'string' && decline.reason.trim() !== '') {
      this.state.declineReason = decline.reason;
    }
    if (typeof decline.declinedBy === 'string') this.state.declinedBy = decline.declinedBy;
    this.resolve('declined', now);
    return this.outcome();
  }

  /** The deadline passed with no answer. */
  expire(now: string): void {
    if (this.isPending) this.resolve('expired', now);
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
        return { status: 'expired', resolvedAt, after: formatDuration(this.timeoutMs ?? 0) };
    }
  }

  private refuseIfResolved(): void {
    const reason = resolvedReason(this.state);
    if (reason !== undefined) throw refusal(ALREADY_RESOLVED, reason);
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

/** `answeredBy` when the input carries it as a string; anything else is ignored, never trusted. */
function answeredByOf(input: unknown): string | undefined {
  if (!isPlainObject(input)) return undefined;
  return typeof input.answeredBy === 'string' ? input.answeredBy : undefined;
}
