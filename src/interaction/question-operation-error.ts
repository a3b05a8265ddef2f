/**
 * The error of the answering side: listing, reading, answering, declining and deciding questions
 * (`QuestionClient`, the CLI, the inbox, Slack). `QuestionClient` throws no other error class of this package. Like `UserInteractionError`, an `AskUserError`: a typed `code`, a message built from
 * the fields that explain it, and a cross-realm `isInstance`.
 *
 * Dependency-free, so the workflow's validators can raise the same codes.
 */
import type { QuestionRecord } from '../types';
import { AskUserError, hasMarker } from './ask-user-error';

/** Stable codes of answering-side failures. */
export type QuestionOperationErrorCode =
  /** No question with that id (or the id names another kind of workflow). */
  | 'NOT_FOUND'
  /** The question was already answered, declined, expired or cancelled; the message names who and when. */
  | 'ALREADY_RESOLVED'
  /** No worker polls the question's task queue, so an update could not be recorded now. Nothing was sent. */
  | 'NO_WORKER'
  /** The operation did not complete within its bound; whether it took effect is unknown. */
  | 'TIMED_OUT'
  /** The Temporal server could not be reached at all: the one outage code, as for the tool. */
  | 'ASK_UNAVAILABLE'
  /** The request itself is malformed (a status, page size or page token); the message names the field. */
  | 'BAD_REQUEST'
  /** The answerer is not in the question's audience; nothing was recorded. The message names who and the audience. */
  | 'FORBIDDEN'
  /** The answer or decision breaks a rule (`rule` names it); nothing was recorded. The message names the field. */
  | 'BAD_ANSWER'
  /** The call does not fit the question (deciding a question, a malformed deadline move); nothing was recorded. */
  | 'INVALID_ARGS';

const marker = Symbol.for('durable-ask-user.QuestionOperationError');

/** A question that does not exist, is no longer open, or cannot be answered right now. */
export class QuestionOperationError extends AskUserError<QuestionOperationErrorCode> {
  /** For `ALREADY_RESOLVED`: the question as it was closed. */
  declare readonly record?: QuestionRecord;
  /** For `BAD_ANSWER`: which answer or decision rule was broken (see `AnswerRule`, `DecisionRule`). */
  declare readonly rule?: string;
  private readonly [marker] = true;

  constructor(
    code: QuestionOperationErrorCode,
    message: string,
    options?: { record?: QuestionRecord; rule?: string; cause?: unknown },
  ) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.record !== undefined) this.record = options.record;
    if (options?.rule !== undefined) this.rule = options.rule;
  }

  /** True for any `QuestionOperationError`, from any copy of this package. */
  static override isInstance(value: unknown): value is QuestionOperationError {
    return hasMarker(value, marker);
  }

  static notFound(workflowId: string): QuestionOperationError {
    return new QuestionOperationError('NOT_FOUND', `no question with id ${JSON.stringify(workflowId)}`);
  }

  /** `reason` names who answered or declined and when (see `resolvedReason`). */
  static alreadyResolved(reason: string, record?: QuestionRecord): QuestionOperationError {
    return new QuestionOperationError(
      'ALREADY_RESOLVED',
      reason,
      record === undefined ? undefined : { record },
    );
  }

  /** `ASK_UNAVAILABLE`: the server at `address` could not be reached at all. */
  static unavailable(address: string, reason: string, cause?: unknown): QuestionOperationError {
    return new QuestionOperationError(
      'ASK_UNAVAILABLE',
      `cannot reach Temporal at ${address}: ${reason}`,
      cause === undefined ? undefined : { cause },
    );
  }

  /** `BAD_REQUEST`: `message` names the field and the reason (`pageSize: must be ...`). */
  static badRequest(message: string): QuestionOperationError {
    return new QuestionOperationError('BAD_REQUEST', message);
  }

  /** `FORBIDDEN`: `reason` names who was refused and who the question is assigned to. */
  static forbidden(reason: string): QuestionOperationError {
    return new QuestionOperationError('FORBIDDEN', reason);
  }

  /** `BAD_ANSWER` for an answer that breaks the answer rules, naming the field and the reason. */
  static badAnswer(reason: string, rule?: string): QuestionOperationError {
    return new QuestionOperationError(
      'BAD_ANSWER',
      `ask_user_question received an invalid answer: ${reason}`,
      rule === undefined ? undefined : { rule },
    );
  }

  /**
   * `BAD_ANSWER` for a decision that breaks the decision rules: `invalid decision: <reason>`, e.g.
   * `invalid decision: input.replicas: 50 is greater than 10` for an edit outside the tool's schema.
   */
  static badDecision(reason: string, rule?: string): QuestionOperationError {
    return new QuestionOperationError(
      'BAD_ANSWER',
      `invalid decision: ${reason}`,
      rule === undefined ? undefined : { rule },
    );
  }

  /** `INVALID_ARGS`: each problem is `<path>: <reason>`. */
  static invalidArgs(problems: readonly string[]): QuestionOperationError {
    return new QuestionOperationError('INVALID_ARGS', `invalid arguments: ${problems.join('; ')}`);
  }

  static noWorker(taskQueue: string): QuestionOperationError {
    return new QuestionOperationError(
      'NO_WORKER',
      `no ask-user worker is polling task queue ${JSON.stringify(taskQueue)}, so the answer was not sent; ` +
        'start one (`ask-user worker`) and answer again',
    );
  }

  static timedOut(operation: string, seconds: number, cause?: unknown): QuestionOperationError {
    return new QuestionOperationError(
      'TIMED_OUT',
      `${operation} did not complete within ${seconds}s; it may or may not have been recorded (check with \`ask-user show\`)`,
      cause === undefined ? undefined : { cause },
    );
  }
}
