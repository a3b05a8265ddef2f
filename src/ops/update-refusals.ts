/**
 * What an ops client's update can come back with besides its outcome: a validator's refusal (mapped to the
 * `QuestionOperationError` each surface shows), a lost race (the winner is then read and named), or no worker to
 * take it (the answer is then recorded as a signal).
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { isClosedWorkflowError } from '../connection/grpc-failures';
import { QuestionOperationError } from '../interaction/question-operation-error';
import { ALREADY_RESOLVED, BAD_ANSWER, FORBIDDEN, INVALID_ARGS } from '../question/failures';

/** The message of an application failure raised by the workflow's validators, with its type. */
export function validatorFailure(error: unknown): ApplicationFailure | undefined {
  if (!(error instanceof WorkflowUpdateFailedError)) return undefined;
  return error.cause instanceof ApplicationFailure ? error.cause : undefined;
}

/**
 * An answer that no worker took: no worker polls, or none accepted the update in time. `taskQueue` is the
 * question's, when its pollers were read and showed no worker taking its tasks.
 */
export class NotTakenByWorker extends Error {
  constructor(readonly taskQueue?: string) {
    super('no worker took the answer');
  }
}

/**
 * An update that lost to another answer or to the question closing, or was sent to an id that names no
 * question: the record is read, and names the winner (or says there is no such question).
 */
export class LostRace extends Error {
  constructor(override readonly cause: unknown) {
    super('lost the race');
  }
}

/**
 * The refusal of a workflow that has no handler of the update: a workflow of another type under a question's
 * id (the SDK refuses an update it has no handler for with this message, typed `Error`).
 */
function noSuchHandler(failure: ApplicationFailure | undefined): boolean {
  return /^No registered handler for update\b/.test(failure?.message ?? '');
}

/**
 * Throws what an update's failure means, when it is a refusal: `badInput`'s error for `BAD_ANSWER`,
 * `INVALID_ARGS`, `FORBIDDEN`, or `LostRace` when another answer or the question's end came first, or the
 * workflow is no question. Returns for any other failure (the caller decides whether to send it again).
 */
export function throwIfRefused(
  error: unknown,
  badInput: (reason: string, rule?: string) => QuestionOperationError,
): void {
  const failure = validatorFailure(error);
  if (failure?.type === BAD_ANSWER) {
    const rule = typeof failure.details?.[0] === 'string' ? failure.details[0] : undefined;
    throw badInput(failure.message, rule);
  }
  if (failure?.type === INVALID_ARGS) throw new QuestionOperationError('INVALID_ARGS', failure.message);
  if (failure?.type === FORBIDDEN) throw QuestionOperationError.forbidden(failure.message);
  if (failure?.type === ALREADY_RESOLVED || isClosedWorkflowError(error) || noSuchHandler(failure)) {
    throw new LostRace(error);
  }
}
