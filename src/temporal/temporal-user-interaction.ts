/**
 * `TemporalUserInteraction`: the durable provider. Each question is an `askUserQuestionWorkflow`; the agent
 * only waits on its result, so the agent, the worker or the server can restart while the question is pending.
 */
import {
  Client,
  Connection,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type WorkflowHandle,
} from '@temporalio/client';
import {
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowExecutionAlreadyStartedError,
} from '@temporalio/common';
import { UserInteractionError } from '../interaction/user-interaction-error';
import type {
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  AskUserQuestionWorkflowInput,
  AskUserQuestionWorkflowResult,
  UserInteraction,
} from '../types';
import { ASK_USER_QUESTION_WORKFLOW_TYPE, type QuestionMemo } from '../workflows/definitions';
import { questionDetails, questionTitle } from '../workflows/question-text';
import { validateWebhookUrls } from '../activities/webhook-activities';
import { loadTemporalSettings, taskQueueFromEnv } from './connection-config';
import { questionWorkflowId } from '../workflows/workflow-id';

/** Options of `TemporalUserInteraction`. All optional: without a client it connects from the environment. */
export interface TemporalUserInteractionOptions {
  /** A connected client. Without one, a connection is opened from `TEMPORAL_*` settings on first use. */
  client?: Client;
  /** Task queue of the ask-user worker. Default `ASK_USER_TASK_QUEUE`, else `ask-user-question`. */
  taskQueue?: string;
  /** Config profile to load when no client is given. */
  profile?: string;
  /**
   * How long the server may be unreachable (to connect, to start or re-attach, while waiting) before
   * `ask()` fails with `ASK_UNAVAILABLE`. The question itself stays durable. Default 15 s.
   */
  unavailableTimeoutMs?: number;
  /** Deadline after which an unanswered question expires (`ASK_EXPIRED`). Default: none, wait forever. */
  questionTimeoutMs?: number;
  /** Extra webhook URLs notified for questions asked through this provider, besides the worker's. */
  webhookUrls?: string[];
}

const DEFAULT_UNAVAILABLE_TIMEOUT_MS = 15_000;

/** Marks a failure the caller can recover from by waiting: the server or network is down for now. */
function isTransient(error: unknown): boolean {
  if (error instanceof WorkflowFailedError || error instanceof WorkflowNotFoundError) return false;
  if (!(error instanceof Error)) return false;
  // ServiceError / ConnectionError from the client, or a raw gRPC error: UNAVAILABLE, DEADLINE_EXCEEDED,
  // RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNKNOWN.
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'number') return [1, 2, 4, 8, 10, 13, 14].includes(code);
  return error.name === 'ServiceError' || error.name === 'ConnectionError' || error.name === 'TransportError';
}

// A function, not an inline check: TypeScript would narrow `signal.aborted` after the first test and treat
// later ones as always false, but an abort can happen across every await.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Durable `UserInteraction` over Temporal.
 *
 * @example
 * const userInteraction = new TemporalUserInteraction(); // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, ...
 * const tool = createAskUserQuestionTool({ userInteraction });
 */
export class TemporalUserInteraction implements UserInteraction {
  private readonly options: TemporalUserInteractionOptions;
  private readonly unavailableTimeoutMs: number;
  private clientPromise: Promise<Client> | undefined;
  private ownConnection: Connection | undefined;
  /** Start requests and cancellation requests still out, which `close()` waits for. */
  private readonly inFlight = new Set<Promise<unknown>>();

  /**
   * @throws Error naming the option when `unavailableTimeoutMs` or `questionTimeoutMs` is not a positive
   *   finite number of milliseconds, or a webhook URL is not http(s).
   */
  constructor(options: TemporalUserInteractionOptions = {}) {
    for (const name of ['unavailableTimeoutMs', 'questionTimeoutMs'] as const) {
      const value = options[name];
      if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
        throw new Error(`TemporalUserInteraction option ${name}: must be a positive number of milliseconds`);
      }
    }
    if (options.webhookUrls !== undefined) validateWebhookUrls(options.webhookUrls);
    this.options = options;
    this.unavailableTimeoutMs = options.unavailableTimeoutMs ?? DEFAULT_UNAVAILABLE_TIMEOUT_MS;
    if (options.client !== undefined) this.clientPromise = Promise.resolve(options.client);
  }

  /** The task queue questions are started on. */
  get taskQueue(): string {
    return this.options.taskQueue ?? taskQueueFromEnv();
  }

  /** The client in use, connecting first when none was given. */
  async client(): Promise<Client> {
    this.clientPromise ??= this.connect();
    try {
      return await this.clientPromise;
    } catch (error) {
      this.clientPromise = undefined; // let the next ask try again
      throw error;
    }
  }

  /**
   * Waits for start and cancellation requests still in flight (an aborted ask cancels its workflow after the
   * tool has already returned `ASK_ABORTED`), then closes the connection this provider opened itself; a client passed in is
   * left to its owner. Call it before the process exits, or an abort may never reach the server.
   */
  async close(): Promise<void> {
    // A start still out may be followed by a cancellation (its ask was aborted meanwhile): wait for both.
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    const connection = this.ownConnection;
    if (connection === undefined) return; // a client passed in stays usable: its owner closes it
    this.ownConnection = undefined;
    this.clientPromise = undefined;
    await connection.close();
  }

  async ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> {
    const { signal } = request;
    if (isAborted(signal)) throw UserInteractionError.aborted();
    if (request.questions.length === 0) throw UserInteractionError.emptyQuestions();

    const client = await this.client();
    if (isAborted(signal)) throw UserInteractionError.aborted();

    // The cancellation request starts in the abort event itself, not once the poll notices: the tool settles
    // `ASK_ABORTED` at that same moment, and a caller that then calls `close()` must find it in flight. An
    // abort while the start request is still out is caught right after it returns; `close()` waits for the
    // start too, so that moment is never missed.
    const aborted = new AbortController();
    const starting = this.startOrAttach(client, request);
    this.inFlight.add(starting);
    let handle: Awaited<typeof starting>;
    let cancellation: Promise<void> | undefined;
    const cancel = (): Promise<void> => (cancellation ??= this.requestCancel(client, handle));
    const onAbort = (): void => {
      void cancel();
      aborted.abort();
    };
    try {
      handle = await starting;
      signal?.addEventListener('abort', onAbort, { once: true });
      if (isAborted(signal)) onAbort();
    } finally {
      this.inFlight.delete(starting);
    }
    let result: AskUserQuestionWorkflowResult;
    try {
      result = await this.waitForResult(client, handle, aborted.signal);
    } catch (error) {
      if (aborted.signal.aborted) {
        await cancel();
        throw UserInteractionError.aborted();
      }
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    switch (result.status) {
      case 'answered':
        return result.answer;
      case 'declined':
        throw UserInteractionError.cancelled(result.reason);
      case 'expired':
        throw UserInteractionError.expired(result.after);
    }
  }

  private async connect(): Promise<Client> {
    const settings = loadTemporalSettings(
      this.options.profile === undefined ? {} : { profile: this.options.profile },
    );
    try {
      const connection = await Connection.connect({
        ...settings.connectionOptions,
        connectTimeout: this.unavailableTimeoutMs,
      });
      this.ownConnection = connection;
      return new Client({ connection, namespace: settings.namespace });
    } catch (error) {
      throw UserInteractionError.unavailable(`${settings.address}: ${reasonOf(error)}`, error);
    }
  }

  /** Runs one server call within the unavailability bound, as `ASK_UNAVAILABLE` when it cannot complete. */
  private async bounded<T>(client: Client, call: () => Promise<T>): Promise<T> {
    try {
      return await client.withDeadline(Date.now() + this.unavailableTimeoutMs, call);
    } catch (error) {
      if (isTransient(error)) throw UserInteractionError.unavailable(reasonOf(error), error);
      throw error;
    }
  }

  private async startOrAttach(
    client: Client,
    request: AskUserQuestionRequest,
  ): Promise<
    WorkflowHandle<(input: AskUserQuestionWorkflowInput) => Promise<AskUserQuestionWorkflowResult>>
  > {
    const workflowId = questionWorkflowId(request);
    const input: AskUserQuestionWorkflowInput = { questions: request.questions };
    if (request.agent !== undefined) input.agent = request.agent;
    if (request.toolCallId !== undefined) input.toolCallId = request.toolCallId;
    if (this.options.questionTimeoutMs !== undefined) input.timeoutMs = this.options.questionTimeoutMs;
    if (this.options.webhookUrls !== undefined) input.webhookUrls = this.options.webhookUrls;

    const memo: QuestionMemo = {
      title: questionTitle(request.questions),
      questionCount: request.questions.length,
      status: 'pending',
      askedAt: new Date().toISOString(),
    };
    if (request.agent !== undefined) memo.agentId = request.agent.id;
    if (request.agent?.sessionId !== undefined) memo.sessionId = request.agent.sessionId;
    if (request.toolCallId !== undefined) memo.toolCallId = request.toolCallId;

    try {
      return await this.bounded(client, () =>
        client.workflow.start<
          (input: AskUserQuestionWorkflowInput) => Promise<AskUserQuestionWorkflowResult>
        >(ASK_USER_QUESTION_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: this.taskQueue,
          args: [input],
          // A running question with this id is the same question: re-attach to it. A closed one holds the
          // answer already given: refuse to start a duplicate and read its result instead.
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          memo: { ...memo },
          staticSummary: memo.title,
          staticDetails: questionDetails(request.questions, workflowId),
        }),
      );
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return client.workflow.getHandle(workflowId);
      if (UserInteractionError.isInstance(error)) throw error;
      throw UserInteractionError.unavailable(reasonOf(error), error);
    }
  }

  /**
   * Waits for the workflow's result for as long as the question is pending. A server outage is waited out
   * for up to `unavailableTimeoutMs`; an abort of `signal` ends the wait with `ASK_ABORTED` (the caller has
   * already requested the cancellation).
   *
   * The wait is a series of long polls, each cut off (aborted, not given a deadline, which would make the
   * server answer early and the client poll again at once) after half the unavailability bound: the client's
   * own gRPC retries would otherwise hide an outage for longer than the bound. A poll that ends without a
   * result is judged by a cheap `describe()`: a reachable server means the question is simply not answered
   * yet; an unreachable one starts the outage clock.
   */
  private async waitForResult(
    client: Client,
    handle: WorkflowHandle<(input: AskUserQuestionWorkflowInput) => Promise<AskUserQuestionWorkflowResult>>,
    signal: AbortSignal | undefined,
  ): Promise<AskUserQuestionWorkflowResult> {
    const pollWindowMs = Math.max(this.unavailableTimeoutMs / 2, 1_000);
    let outageSince: number | undefined;
    let backoffMs = 200;
    for (;;) {
      if (isAborted(signal)) throw UserInteractionError.aborted();
      if (outageSince === undefined) {
        try {
          const result = await this.pollResult(client, handle, signal, pollWindowMs);
          if (result !== undefined) return result;
        } catch (error) {
          if (isAborted(signal)) throw UserInteractionError.aborted();
          if (error instanceof WorkflowFailedError) throw this.failureToError(error);
          if (error instanceof WorkflowNotFoundError) {
            throw UserInteractionError.unavailable(`question ${handle.workflowId} no longer exists`, error);
          }
          if (!isTransient(error)) throw UserInteractionError.unavailable(reasonOf(error), error);
        }
      }
      if (await this.reachable(client, handle)) {
        outageSince = undefined;
        backoffMs = 200;
        continue;
      }
      outageSince ??= Date.now();
      if (Date.now() - outageSince >= this.unavailableTimeoutMs) {
        throw UserInteractionError.unavailable(
          `the server has been unreachable for ${Math.round((Date.now() - outageSince) / 1000)}s`,
        );
      }
      await sleep(backoffMs, signal);
      backoffMs = Math.min(backoffMs * 2, 2_000);
    }
  }

  /**
   * One long poll for the result, cut off after `windowMs` (resolving `undefined`) or when the caller's
   * signal aborts.
   */
  private async pollResult(
    client: Client,
    handle: WorkflowHandle<(input: AskUserQuestionWorkflowInput) => Promise<AskUserQuestionWorkflowResult>>,
    signal: AbortSignal | undefined,
    windowMs: number,
  ): Promise<AskUserQuestionWorkflowResult | undefined> {
    // A fresh controller per poll: the client adds a listener to the signal it is given for every call, so
    // handing it the caller's long-lived signal would pile up listeners on it.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), windowMs);
    const forward = (): void => controller.abort();
    signal?.addEventListener('abort', forward, { once: true });
    try {
      return await client.withAbortSignal(controller.signal, () => handle.result());
    } catch (error) {
      // The window ran out: not a failure, the caller checks the server and polls again.
      if (controller.signal.aborted && !isAborted(signal)) return undefined;
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  }

  private async reachable(client: Client, handle: WorkflowHandle): Promise<boolean> {
    try {
      await client.withDeadline(Date.now() + 2_000, () => handle.describe());
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Requests cancellation of the question, tracked so that `close()` waits for it. Best effort within the
   * unavailability bound: an unreachable question stays visible to ops, who can decline it.
   */
  private async requestCancel(client: Client, handle: WorkflowHandle): Promise<void> {
    const cancellation = client
      .withDeadline(Date.now() + this.unavailableTimeoutMs, () => handle.cancel())
      .then(
        () => undefined,
        () => undefined,
      );
    this.inFlight.add(cancellation);
    try {
      await cancellation;
    } finally {
      this.inFlight.delete(cancellation);
    }
  }

  private failureToError(error: WorkflowFailedError): UserInteractionError {
    const cause = error.cause;
    // Nobody declined: the question was withdrawn (by an earlier abort of the same tool call, or by an
    // operator cancelling or terminating it), so it can no longer be answered.
    if (cause instanceof CancelledFailure || cause instanceof TerminatedFailure) {
      return UserInteractionError.aborted();
    }
    if (cause instanceof TimeoutFailure)
      return UserInteractionError.unavailable('the question workflow timed out', error);
    return UserInteractionError.unavailable(
      `the question workflow failed: ${reasonOf(cause ?? error)}`,
      error,
    );
  }
}
