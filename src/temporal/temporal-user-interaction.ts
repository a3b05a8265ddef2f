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

  constructor(options: TemporalUserInteractionOptions = {}) {
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

  /** Closes the connection this provider opened itself (a client passed in is left to its owner). */
  async close(): Promise<void> {
    const connection = this.ownConnection;
    this.ownConnection = undefined;
    this.clientPromise = undefined;
    await connection?.close();
  }

  async ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> {
    const { signal } = request;
    if (signal?.aborted === true) throw UserInteractionError.aborted();
    if (request.questions.length === 0) throw UserInteractionError.emptyQuestions();

    const client = await this.client();
    const handle = await this.startOrAttach(client, request);
    const result = await this.waitForResult(client, handle, signal);
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
    const { connectionOptions } = settings;
    try {
      const connection = await Connection.connect({
        address: settings.address,
        ...(connectionOptions.tls === undefined ? {} : { tls: connectionOptions.tls }),
        ...(connectionOptions.apiKey === undefined ? {} : { apiKey: connectionOptions.apiKey }),
        ...(connectionOptions.metadata === undefined ? {} : { metadata: connectionOptions.metadata }),
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
   * for up to `unavailableTimeoutMs`; an abort cancels the workflow and fails with `ASK_ABORTED`.
   *
   * The wait is a series of long polls, each cut off after `unavailableTimeoutMs`: the client's own gRPC
   * retries would otherwise hide an outage for longer than the configured bound. A poll that ends without a
   * result is judged by a cheap `describe()`: a reachable server means the question simply is not answered yet.
   */
  private async waitForResult(
    client: Client,
    handle: WorkflowHandle<(input: AskUserQuestionWorkflowInput) => Promise<AskUserQuestionWorkflowResult>>,
    signal: AbortSignal | undefined,
  ): Promise<AskUserQuestionWorkflowResult> {
    const pollWindowMs = Math.max(this.unavailableTimeoutMs, 1_000);
    let outageSince: number | undefined;
    let backoffMs = 200;
    for (;;) {
      const pollStartedAt = Date.now();
      try {
        const wait = (): Promise<AskUserQuestionWorkflowResult> =>
          client.withDeadline(pollStartedAt + pollWindowMs, () => handle.result());
        return await (signal === undefined ? wait() : client.withAbortSignal(signal, wait));
      } catch (error) {
        if (signal?.aborted === true) {
          await this.cancel(client, handle);
          throw UserInteractionError.aborted();
        }
        if (error instanceof WorkflowFailedError) throw this.failureToError(error);
        if (error instanceof WorkflowNotFoundError) {
          throw UserInteractionError.unavailable(`question ${handle.workflowId} no longer exists`, error);
        }
        if (!isTransient(error)) throw UserInteractionError.unavailable(reasonOf(error), error);
        if (await this.reachable(client, handle)) {
          outageSince = undefined;
          backoffMs = 200;
          continue;
        }
        outageSince ??= pollStartedAt;
        if (Date.now() - outageSince >= this.unavailableTimeoutMs) {
          throw UserInteractionError.unavailable(reasonOf(error), error);
        }
        await sleep(backoffMs, signal);
        backoffMs = Math.min(backoffMs * 2, 2_000);
      }
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

  /** Requests cancellation of the question. Best effort within the unavailability bound. */
  private async cancel(client: Client, handle: WorkflowHandle): Promise<void> {
    try {
      await client.withDeadline(Date.now() + this.unavailableTimeoutMs, () => handle.cancel());
    } catch {
      // The server is unreachable or the workflow already closed: the agent's turn is over either way,
      // and an unreachable question stays visible to ops, who can decline it.
    }
  }

  private failureToError(error: WorkflowFailedError): UserInteractionError {
    const cause = error.cause;
    if (cause instanceof CancelledFailure) {
      return UserInteractionError.cancelled('the question was cancelled on the server');
    }
    if (cause instanceof TerminatedFailure) {
      return UserInteractionError.cancelled('the question was terminated on the server');
    }
    if (cause instanceof TimeoutFailure)
      return UserInteractionError.unavailable('the question workflow timed out', error);
    return UserInteractionError.unavailable(
      `the question workflow failed: ${reasonOf(cause ?? error)}`,
      error,
    );
  }
}
