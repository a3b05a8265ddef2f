/**
 * The one error class of the seam. Every failure the model can see is a `UserInteractionError` with a stable
 * `code`; `formatToolError` turns it into the text the model reads.
 *
 * Dependency-free, so workflow code and any runtime can import it.
 */

/** Stable failure codes. The message of each is fixed by the public contract. */
export type UserInteractionErrorCode =
  | 'INVALID_ARGS'
  | 'EMPTY_QUESTIONS'
  | 'NO_PROVIDER'
  | 'DUPLICATE_PROVIDER'
  | 'ASK_ABORTED'
  | 'ASK_CANCELLED'
  | 'ASK_EXPIRED'
  | 'ASK_UNAVAILABLE'
  | 'BAD_ANSWER'
  | 'ASK_CONFLICT'
  | 'INVALID_OPTIONS'
  | 'DECISION_MISMATCH'
  | 'RUN_STOPPED';

import { definedFields, errorText } from '../common';
import { AskUserError, hasMarker } from './ask-user-error';

// A registry-wide symbol, so that two copies of this package (or a test runner's separate realm) still
// recognise each other's errors where `instanceof` would not.
const marker = Symbol.for('durable-ask-user.UserInteractionError');

/** Failure of `ask_user_question` or of the user-interaction seam. */
export class UserInteractionError extends AskUserError<UserInteractionErrorCode> {
  /** For `BAD_ANSWER`: which answer rule was broken (see `AnswerRule`). Absent, not `undefined`, otherwise. */
  // `declare`: a plain field declaration would define an own `rule: undefined` on every other error.
  declare readonly rule?: string;
  private readonly [marker] = true;

  constructor(code: UserInteractionErrorCode, message: string, options?: { cause?: unknown; rule?: string }) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.rule !== undefined) this.rule = options.rule;
  }

  /** True for any `UserInteractionError`, from any copy of this package. */
  static override isInstance(value: unknown): value is UserInteractionError {
    return hasMarker(value, marker);
  }

  /** `INVALID_ARGS`: each problem is `<path>: <reason>`. */
  static invalidArgs(problems: readonly string[]): UserInteractionError {
    return new UserInteractionError('INVALID_ARGS', `invalid arguments: ${problems.join('; ')}`);
  }

  /**
   * `INVALID_OPTIONS`: an operator's or a developer's setting is wrong (never the model's arguments). The
   * message names the setting and the reason, e.g. `ASK_USER_INBOX_TOKEN: a token must not contain whitespace`.
   */
  static invalidSetting(message: string, cause?: unknown): UserInteractionError {
    return new UserInteractionError('INVALID_OPTIONS', message, cause === undefined ? undefined : { cause });
  }

  static emptyQuestions(): UserInteractionError {
    return new UserInteractionError('EMPTY_QUESTIONS', 'ask_user_question requires at least one question');
  }

  static noProvider(): UserInteractionError {
    return new UserInteractionError('NO_PROVIDER', 'no user-interaction provider is registered');
  }

  static duplicateProvider(): UserInteractionError {
    return new UserInteractionError(
      'DUPLICATE_PROVIDER',
      'a user-interaction provider is already registered; dispose it first',
    );
  }

  static aborted(): UserInteractionError {
    return new UserInteractionError('ASK_ABORTED', 'ask_user_question was aborted before the user answered');
  }

  /** `ASK_CANCELLED`: an answerer declined, optionally with a reason. */
  static cancelled(reason?: string): UserInteractionError {
    const suffix = reason !== undefined && reason.trim() !== '' ? `: ${reason}` : '';
    return new UserInteractionError('ASK_CANCELLED', `the user cancelled ask_user_question${suffix}`);
  }

  /** `ASK_EXPIRED`: `duration` is human-readable, e.g. `30m`. */
  static expired(duration: string): UserInteractionError {
    return new UserInteractionError(
      'ASK_EXPIRED',
      `ask_user_question expired after ${duration} without an answer`,
    );
  }

  static unavailable(reason: string, cause?: unknown): UserInteractionError {
    return new UserInteractionError(
      'ASK_UNAVAILABLE',
      `ask_user_question could not reach the question service: ${reason}`,
      { cause },
    );
  }

  /** `ASK_CONFLICT`: the tool call id already keys a question with other questions in it. */
  static conflict(toolCallId: string): UserInteractionError {
    return new UserInteractionError(
      'ASK_CONFLICT',
      `ask_user_question tool call ${toolCallId} was already used for different questions`,
    );
  }

  /** `INVALID_OPTIONS`: a programming error in how a provider, worker or client was configured. */
  static invalidOptions(owner: string, name: string, reason: string): UserInteractionError {
    return new UserInteractionError('INVALID_OPTIONS', `${owner} option ${name}: ${reason}`);
  }

  /** `ASK_ABORTED` for an approval: the agent gave up on the call before anyone decided. */
  static approvalAborted(toolName: string): UserInteractionError {
    return new UserInteractionError(
      'ASK_ABORTED',
      `the approval of ${toolName} was aborted before anyone decided`,
    );
  }

  /**
   * The same failure, told of an approval of `toolName`: the waiting and connecting code is shared with
   * questions, and its messages name `ask_user_question`.
   */
  static forApproval(error: unknown, toolName: string): unknown {
    if (!UserInteractionError.isInstance(error)) return error;
    if (error.code === 'ASK_ABORTED') return UserInteractionError.approvalAborted(toolName);
    const message = error.message.replaceAll('ask_user_question', `the approval of ${toolName}`);
    return new UserInteractionError(
      error.code,
      message,
      definedFields({ cause: error.cause ?? error, rule: error.rule }),
    );
  }

  /**
   * `DECISION_MISMATCH`: the decision a hook got is bound (by its input hashes) to other input than the call's,
   * so the tool did not run.
   */
  static decisionMismatch(toolName: string, toolCallId: string, problem: string): UserInteractionError {
    return new UserInteractionError(
      'DECISION_MISMATCH',
      `${toolName} did not run: the decision on tool call ${toolCallId} approved other input than this call's: ${problem}`,
    );
  }

  /**
   * `RUN_STOPPED`: the call was rejected with `stop`: the reviewer asked the agent to end its run, not only to
   * skip this call. The message is the rejection text the model would otherwise read.
   */
  static runStopped(rejection: string): UserInteractionError {
    return new UserInteractionError('RUN_STOPPED', `${rejection}, and the run was stopped`);
  }

  /**
   * `BAD_ANSWER` for a decision on an approval that breaks the decision rules: `invalid decision: <reason>`,
   * e.g. `invalid decision: input.replicas: 50 is greater than 10` for an edit outside the tool's schema.
   */
  static badDecision(reason: string, rule?: string): UserInteractionError {
    return new UserInteractionError(
      'BAD_ANSWER',
      `invalid decision: ${reason}`,
      rule === undefined ? undefined : { rule },
    );
  }

  /** `BAD_ANSWER` for an answer that breaks the answer rules, naming the field and the reason. */
  static badAnswer(reason: string, rule?: string): UserInteractionError {
    return new UserInteractionError(
      'BAD_ANSWER',
      `ask_user_question received an invalid answer: ${reason}`,
      rule === undefined ? undefined : { rule },
    );
  }
}

/**
 * Renders a failure as the model-facing tool result text, `Error: <message>`. Anything that is not a
 * `UserInteractionError` is rendered from its message, so a loop can always hand the model something.
 */
export function formatToolError(error: unknown): string {
  if (UserInteractionError.isInstance(error)) return `Error: ${error.message}`;
  return `Error: ${errorText(error)}`;
}
