/**
 * Starting a question on the server, or re-attaching to the one its tool call already started: the provider's
 * first step for every ask and approval, retried through transient failures within the outage bound.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type Connection,
  type WorkflowHandle,
} from '@temporalio/client';
import { GrpcStatus, grpcCode, isTransient, reasonOf } from '../connection/grpc-failures';
import { retryTransient } from '../connection/retry-transient';
import { UserInteractionError } from '../interaction/user-interaction-error';
import {
  ASK_USER_QUESTION_WORKFLOW_TYPE,
  type QuestionMemo,
  type QuestionWorkflow,
} from '../question/definitions';
import type { QuestionStart } from '../question/question-start';
import type { ConnectionHealth } from './connection-health';
import type { QuestionWaiter } from './question-waiter';

/**
 * How long an ask tries to reach the server itself before it reports an outage that began before it. An ask
 * made just as the network comes back (an agent asking again after `ASK_UNAVAILABLE`) meets a channel that
 * has not reconnected yet: without this it would fail at once on the age of an outage that is already over
 * (docs/reliability.md). During an outage, a new ask fails this much later.
 */
const FRESH_ASK_ATTEMPT_MS = 3_000;

type QuestionHandle = WorkflowHandle<QuestionWorkflow>;

/** The client, the connection's health and the waiter, created together on first use. */
export interface Session {
  client: Client;
  health: ConnectionHealth;
  waiter: QuestionWaiter;
  /** The connection this provider opened itself, which `close()` closes. */
  ownConnection?: Connection;
}

// A function, not an inline check: TypeScript would narrow `signal.aborted` after the first test and treat
// later ones as always false, but an abort can happen across every await.
export function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Where and how long {@link startOrAttach} tries. */
export interface StartOptions {
  taskQueue: string;
  /** The outage bound: past it without any answer from the server, the ask fails `ASK_UNAVAILABLE`. */
  unavailableTimeoutMs: number;
  /**
   * When the ask began (epoch ms), if before this start: an approval's grant check comes first, and the time it
   * spent counts toward the fresh attempt below. Default now.
   */
  startedAt?: number;
  signal: AbortSignal | undefined;
}

/**
 * Starts the question, or re-attaches to the one this tool call already started. A start that fails on the
 * client's side may still have reached the server, so it is sent again with the same workflow id: the
 * server then reports the question as started, and it is re-attached, never duplicated. Transient failures
 * are retried for as long as the server answers at all; only an outage past the bound gives up.
 */
export async function startOrAttach(
  session: Session,
  start: QuestionStart,
  { taskQueue, unavailableTimeoutMs, startedAt = Date.now(), signal }: StartOptions,
): Promise<string> {
  const { client, health } = session;
  const freshForMs = Math.min(FRESH_ASK_ATTEMPT_MS, unavailableTimeoutMs);
  return health.watch(async () => {
    const handle = await retryTransient(
      () =>
        client.withDeadline(Date.now() + unavailableTimeoutMs, () =>
          attachIfStarted(client, start, () =>
            client.workflow.start<QuestionWorkflow>(ASK_USER_QUESTION_WORKFLOW_TYPE, {
              workflowId: start.workflowId,
              taskQueue: taskQueue,
              args: [start.input],
              // A running or closed question with this id is this tool call's: compare, then re-attach.
              workflowIdConflictPolicy: 'FAIL',
              workflowIdReusePolicy: 'REJECT_DUPLICATE',
              memo: { ...start.memo },
              staticSummary: start.staticSummary,
              staticDetails: start.staticDetails,
            }),
          ),
        ),
      {
        ...(signal === undefined ? {} : { signal }),
        retryIf: (error) => {
          if (UserInteractionError.isInstance(error)) throw error;
          if (grpcCode(error) === GrpcStatus.INVALID_ARGUMENT) {
            throw UserInteractionError.invalidArgs([
              `questions: the server refused them: ${reasonOf(error)}`,
            ]);
          }
          if (!isTransient(error)) throw UserInteractionError.unavailable(reasonOf(error), error);
          if (isAborted(signal)) throw UserInteractionError.aborted();
          const outage = Date.now() - startedAt < freshForMs ? undefined : health.outage();
          if (outage !== undefined) throw outage;
          return true;
        },
      },
    );
    health.markHealthy();
    return handle.workflowId;
  });
}

/** Runs the start; when the question already exists, re-attaches to it instead (see `attach`). */
async function attachIfStarted(
  client: Client,
  start: QuestionStart,
  send: () => Promise<QuestionHandle>,
): Promise<QuestionHandle> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return attach(client, start);
  }
}

/**
 * The tool call's question already exists: one lookup of its memo tells the same questions (re-attach, and
 * an answer given meanwhile comes back at once) from other ones (`ASK_CONFLICT`, nothing recorded).
 */
async function attach(client: Client, start: QuestionStart): Promise<QuestionHandle> {
  const handle: QuestionHandle = client.workflow.getHandle(start.workflowId);
  const description = await handle.describe();
  const memo = (description.memo ?? {}) as Partial<QuestionMemo>;
  if (description.type !== ASK_USER_QUESTION_WORKFLOW_TYPE) {
    throw UserInteractionError.unavailable(
      `workflow ${start.workflowId} exists and is not a question (${description.type})`,
    );
  }
  // A question and an approval never share a fingerprint; a workflow started by other means has none.
  if (memo.fingerprint !== start.memo.fingerprint) {
    throw UserInteractionError.conflict(start.input.toolCallId ?? start.workflowId);
  }
  return handle;
}
