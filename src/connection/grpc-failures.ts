/**
 * The one classifier of failed server calls, used by the provider, the waiter, `QuestionClient` and the CLI:
 * which failures mean "the server is not answering right now" (wait and retry within the outage bound) and
 * which mean "the question has closed" (read it to say who answered).
 */
import {
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { reasonOf } from './failure-reason';
import { GrpcStatus } from './grpc-status';
import { TurnTimedOut } from './update-lanes';

export { GrpcStatus, reasonOf };

const TRANSIENT_CODES: ReadonlySet<number> = new Set([
  GrpcStatus.UNKNOWN,
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.RESOURCE_EXHAUSTED,
  GrpcStatus.ABORTED,
  GrpcStatus.INTERNAL,
  GrpcStatus.UNAVAILABLE,
]);

/** The gRPC status code of a failed call: on the error itself (raw gRPC) or its cause (`ServiceError`). */
export function grpcCode(error: unknown): number | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'number') return code;
    current = current.cause;
  }
  return undefined;
}

/**
 * True when the call failed because the server did not answer in time or could not be reached: worth
 * retrying. A workflow that failed or does not exist is an answer, not an outage.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof WorkflowFailedError || error instanceof WorkflowNotFoundError) return false;
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  if (!(error instanceof Error)) return false;
  if (isDeadlineExceeded(error)) return true;
  const code = grpcCode(error);
  if (code !== undefined) return TRANSIENT_CODES.has(code);
  return error.name === 'ServiceError' || error.name === 'ConnectionError' || error.name === 'TransportError';
}

/**
 * True when the call ran out of its deadline (ours or the server's). The server's shows as `CANCELLED`: a server
 * slow to answer resets the call with `CANCEL` at its deadline, a moment before the client's own timer would say
 * `DEADLINE_EXCEEDED`, and grpc-js words that reset "Call cancelled" (a cancel of its own is "Cancelled on
 * client", a closed channel "Channel has been shut down").
 */
export function isDeadlineExceeded(error: unknown): boolean {
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || error instanceof TurnTimedOut) return true;
  const code = grpcCode(error);
  if (code === GrpcStatus.DEADLINE_EXCEEDED) return true;
  return code === GrpcStatus.CANCELLED && /\bCall cancelled\b/.test(reasonOf(error));
}

/**
 * True when an update or signal lost a race with the question's completion: the server refuses it with
 * "workflow execution already completed", or aborts an accepted-but-unfinished update as the workflow closes.
 * The caller reads the question to name who answered.
 */
export function isClosedWorkflowError(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  const text = reasonOf(error);
  return /already completed|aborted by closing workflow|workflow execution.*(completed|closed)/i.test(text);
}

/**
 * True when an update failed because the workflow task that ran it failed, e.g. the worker crashed or was
 * replaced mid-task (`FAILED_PRECONDITION: unexpected workflow task failure`): the same update may be sent
 * again with the same update id.
 */
export function isInterruptedUpdate(error: unknown): boolean {
  return /unexpected workflow task failure|workflow task.*(failed|timed out)/i.test(reasonOf(error));
}
