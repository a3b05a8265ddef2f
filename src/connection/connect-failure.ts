/**
 * The errors for a server that cannot be reached, one per side. Kept apart from `connect.ts`, which loads
 * `@temporalio/client`, so that a reading command can report an unreachable server in the same words without it.
 */
import { QuestionOperationError } from '../interaction/question-operation-error';
import { UserInteractionError } from '../interaction/user-interaction-error';

/** Builds the error for a server that cannot be reached. */
export type ConnectFailure = (address: string, reason: string, cause: unknown) => Error;

/** The asking side's failure: `ASK_UNAVAILABLE` naming the address. */
export const unavailableToAsk: ConnectFailure = (address, reason, cause) =>
  UserInteractionError.unavailable(`${address}: ${reason}`, cause);

/** The answering side's failure (`QuestionClient`, the CLI): `ASK_UNAVAILABLE` naming the address. */
export const unavailableToAnswer: ConnectFailure = (address, reason, cause) =>
  QuestionOperationError.unavailable(address, reason, cause);
