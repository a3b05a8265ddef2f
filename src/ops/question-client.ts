/**
 * `QuestionClient`: the ops side of durable questions — list, read, answer, decline, decide and extend them.
 * The CLI, the inbox, Slack and the MCP tools are thin shells over it. Listing and reading work from Temporal's
 * visibility and history alone, so they need no running worker. Every failure it reports is a
 * `QuestionOperationError` with a stable `code`.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowUpdateStage, type Client, type Connection, type WorkflowHandle } from '@temporalio/client';
import { GrantClient, boundedCall, type CallSettings } from './grant-client';
import { QuestionOperationError } from '../interaction/question-operation-error';
import type {
  DecideInput,
  DeclineInput,
  ExtendDeadlineInput,
  QuestionOutcome,
  QuestionRecord,
  SubmitAnswerInput,
} from '../types';
import {
  WORKFLOW_ID_PREFIX,
  answerSignal,
  decideUpdate,
  declineUpdate,
  extendDeadlineUpdate,
  getQuestionQuery,
  submitAnswerUpdate,
} from '../question/definitions';
import { ALREADY_RESOLVED } from '../question/failures';
import { parseDuration } from '../question/question-policy';
import { connectToTemporal, unavailableToAnswer, type ConnectOptions } from '../connection/connect';
import { retryTransient } from '../connection/retry-transient';
import { OPS_UPDATES_PER_WORKFLOW, UpdateLanes } from '../connection/update-lanes';
import { scopeDeadline } from '../connection/call-scope';
import type { QuestionClientOptions } from './question-client-options';
import { isDeadlineExceeded, isInterruptedUpdate, isTransient } from '../connection/grpc-failures';
import {
  listQuestionPage,
  type QuestionIndexStatus,
  type QuestionPageOptions,
  type QuestionSummaryPage,
} from './question-listing';
import { recordFromHistory, type Description } from './question-history';
import { visibilityPages, type QuestionSummary } from './question-rows';
import {
  alreadyResolvedError,
  checkBeforeSignal,
  describeQuestion,
  lookAtQuestion,
  recordAwaitingWorker,
} from './answer-awaiting-worker';
import { admissionTimes, admitAnswer } from './answer-admission';
import { WorkerPresence } from './task-queue-workers';
import { LostRace, NotTakenByWorker, throwIfRefused, validatorFailure } from './update-refusals';

export type { QuestionSummary } from './question-rows';
export type { QuestionClientOptions } from './question-client-options';

/** Which questions `list` returns (see `QuestionIndexStatus`). */
export type QuestionListFilter = QuestionIndexStatus;

/** Accepts a full workflow id or the key after `ask-user-question/`. */
export function toWorkflowId(id: string): string {
  return id.startsWith(WORKFLOW_ID_PREFIX) ? id : `${WORKFLOW_ID_PREFIX}${id}`;
}

/** How often an update interrupted by a worker crash is sent again (with the same update id). */
const UPDATE_ATTEMPTS = 5;

/**
 * Lists, reads, answers and declines durable questions.
 *
 * @example
 * const questions = await QuestionClient.connect(); // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, ...
 * try {
 *   for (const question of await questions.list('pending')) console.log(question.workflowId, question.title);
 *   await questions.answer(id, { answers: [{ id: 'deploy', selected: ['Yes'] }], answeredBy: 'alice' });
 * } finally {
 *   await questions.close();
 * }
 */
export class QuestionClient {
  /** The bound on each call and the worker check, as the options set them; the grants follow them too. */
  readonly callSettings: CallSettings;
  private ownConnection: Connection | undefined;
  private readonly workers: WorkerPresence;
  /** A question's updates, an answer's with its signal fallback, a few at a time (`update-lanes.ts`). */
  private readonly updateLanes = new UpdateLanes(OPS_UPDATES_PER_WORKFLOW);
  private grantClient: GrantClient | undefined;

  /** Over a client you own (and close); see `QuestionClient.connect` to connect from the environment. */
  constructor(
    readonly client: Client,
    options: QuestionClientOptions = {},
  ) {
    const callTimeoutMs = options.callTimeoutMs ?? 30_000;
    this.callSettings = {
      callTimeoutMs,
      requireWorker: options.requireWorker ?? true,
      // A worker starting, or reconnecting to a restarted server, gets a third of the call's bound (at most 10 s)
      // to poll before an update is refused with `NO_WORKER`.
      workerPatienceMs: Math.min(callTimeoutMs / 3, 10_000),
    };
    this.workers = new WorkerPresence(client);
  }

  /**
   * Connects from `TEMPORAL_*` settings and config profiles (TLS, API keys): no `@temporalio/client` import of
   * your own. Close it with `close()`.
   *
   * @throws QuestionOperationError `ASK_UNAVAILABLE` naming the address when the server cannot be reached.
   */
  static async connect(options: QuestionClientOptions & ConnectOptions = {}): Promise<QuestionClient> {
    const { client, connection } = await connectToTemporal(options, unavailableToAnswer);
    const questions = new QuestionClient(client, options);
    questions.ownConnection = connection;
    return questions;
  }

  /** Standing grants: grant, approve and grant, list, revoke (`grant-client.ts`). */
  get grants(): GrantClient {
    return (this.grantClient ??= new GrantClient(this));
  }

  /** Closes the connection `connect()` opened; a client passed to the constructor is left to its owner. */
  async close(): Promise<void> {
    const connection = this.ownConnection;
    this.ownConnection = undefined;
    await connection?.close();
  }

  /** Runs one operation within `callTimeoutMs` ({@link boundedCall}). */
  private bounded<T>(operation: string, call: () => Promise<T>): Promise<T> {
    return boundedCall(this.client, this.callSettings.callTimeoutMs, operation, call);
  }

  /**
   * Questions newest first (with `all`, the pending ones first), from visibility: works with no worker running.
   * The first `limit` of them; see {@link listPage} to page through more.
   */
  async list(filter: QuestionListFilter = 'pending', limit = 100): Promise<QuestionSummary[]> {
    return (await this.listPage({ status: filter, pageSize: limit })).questions;
  }

  /**
   * One page of questions, newest first; with `all`, every pending question comes before the resolved ones;
   * with `assignedTo`, the questions of that status (pending by default) whose audience names that person or
   * one of their groups. Pass `nextPageToken` back as `pageToken` for the next page.
   *
   * @example
   * const mine = await questions.listPage({ assignedTo: { name: 'alice', groups: ['sre'] }, pageSize: 20 });
   *
   * @throws QuestionOperationError `BAD_REQUEST` for a status or page size out of range, `NOT_FOUND` for a page
   *   token this list did not issue; `TIMED_OUT` past `callTimeoutMs`.
   */
  async listPage(options: QuestionPageOptions = {}): Promise<QuestionSummaryPage> {
    return this.bounded('list', () => listQuestionPage(visibilityPages(this.client), options));
  }

  /**
   * The full record of a question. Asks the workflow when a worker is up; otherwise rebuilds it from the
   * workflow's history, which the server alone can serve.
   *
   * @throws QuestionOperationError `NOT_FOUND`
   */
  async get(id: string): Promise<QuestionRecord> {
    return this.bounded('show', async () => (await this.read(id)).record);
  }

  private async read(id: string): Promise<{ record: QuestionRecord; taskQueue: string }> {
    const { handle, description } = await this.describe(id);
    const { taskQueue } = description;
    if (description.status.name === 'RUNNING') {
      try {
        const record = await this.client.withDeadline(
          Date.now() + Math.min(3_000, this.callSettings.callTimeoutMs / 2),
          () => handle.query(getQuestionQuery),
        );
        this.workers.sawAnswering(taskQueue);
        return { record, taskQueue };
      } catch {
        // No worker answers queries right now: fall back to history, and say so. An answer sent right after
        // (`ask-user answer` reads first) goes to the signal at once, rather than wait for an update to be taken.
        this.workers.markMissing(taskQueue, handle.workflowId);
        const record = await recordFromHistory(this.client, handle, description);
        return { record: { ...record, noWorker: { taskQueue } }, taskQueue };
      }
    }
    return { record: await recordFromHistory(this.client, handle, description), taskQueue };
  }

  private async describe(id: string): Promise<{ handle: WorkflowHandle; description: Description }> {
    const handle = this.client.workflow.getHandle(toWorkflowId(id));
    return { handle, description: await describeQuestion(handle) };
  }

  /**
   * Records an answer through the `submitAnswer` update: it is checked before anything is recorded. An
   * update interrupted by a worker crash is sent again with the same update id, so it is recorded once. Nothing
   * is read first: the validator's refusal names the winner of a race, and the server's refusal of a closed
   * question is read back only then, to name who answered.
   *
   * When no worker takes it (none accepts the update within 3 s, or this client found none running the question
   * moments ago), the answer is recorded anyway, as the `answer` signal with the same `answerId`, and the
   * outcome, still pending, says so in `awaitingWorker`: the workflow takes it, or refuses it into
   * `rejectedAnswers` under that id, when a worker runs. What the record alone shows to be wrong is refused at
   * once, as with a worker.
   *
   * @throws QuestionOperationError `BAD_ANSWER` with the reason and the rule, `FORBIDDEN`, `NOT_FOUND`,
   *   `ALREADY_RESOLVED` (naming who answered and when) or `TIMED_OUT`.
   */
  async answer(id: string, input: SubmitAnswerInput): Promise<QuestionOutcome> {
    const answer = { ...input, answerId: input.answerId ?? randomUUID() };
    const handle = this.client.workflow.getHandle(toWorkflowId(id));
    // All in the lane: answers queued behind one that no worker took then find it missing, and signal at once.
    return this.bounded('answer', () =>
      this.updateLanes.run(
        handle.workflowId,
        async () => {
          if (!this.workers.recentlyMissing(handle.workflowId)) {
            try {
              return await this.send(id, handle, answer.answerId, (updateId) =>
                this.submitAnswer(handle, answer, updateId),
              );
            } catch (error) {
              if (!(error instanceof NotTakenByWorker)) throw error;
              // Marked now, not once the signal is sent: the answers queued behind this one skip the update
              // even when the record refuses this one before its signal.
              if (error.taskQueue !== undefined) this.workers.markMissing(error.taskQueue, handle.workflowId);
            }
          }
          const outcome = await recordAwaitingWorker(this.client, handle, answer);
          if (outcome.awaitingWorker !== undefined) {
            this.workers.markMissing(outcome.awaitingWorker.taskQueue, handle.workflowId);
          }
          return outcome;
        },
        scopeDeadline(this.client),
      ),
    );
  }

  /** The `submitAnswer` update, given the {@link admissionTimes} of what is left of the call's bound. */
  private async submitAnswer(
    handle: WorkflowHandle,
    answer: SubmitAnswerInput,
    updateId: string,
  ): Promise<QuestionOutcome> {
    return await admitAnswer(
      this.client,
      handle.workflowId,
      // The deadline is the calls' already (`admitAnswer` sets it with its abort signal, in one scope).
      async () => {
        const started = await handle
          .startUpdate(submitAnswerUpdate, {
            args: [answer],
            updateId,
            waitForStage: WorkflowUpdateStage.ACCEPTED,
          })
          .catch((error: unknown) => {
            throw isDeadlineExceeded(error) ? new NotTakenByWorker() : error;
          });
        return await started.result();
      },
      admissionTimes((scopeDeadline(this.client) ?? Infinity) - Date.now()),
      this.workers,
    );
  }

  /**
   * Decides a pending approval through the `decide` update: `approve`, `edit` with the input to run instead,
   * `reject` with an optional reason, or `respond` with a text. The update's validator checks it (an edit
   * against the tool's input schema) and records exactly one decision; a refused one records nothing. The
   * question is not read first, only described (for its task queue's workers): the validator's refusal is the
   * check.
   *
   * @throws QuestionOperationError `BAD_ANSWER` (`invalid decision: <field or input path>: <reason>`),
   *   `INVALID_ARGS` when the id is a question, `FORBIDDEN`, `NOT_FOUND`, `ALREADY_RESOLVED` (naming who decided
   *   and when), `NO_WORKER` or `TIMED_OUT`.
   */
  async decide(id: string, input: DecideInput): Promise<QuestionOutcome> {
    return this.bounded('decide', () =>
      this.update(
        id,
        (handle, updateId) => handle.executeUpdate(decideUpdate, { args: [input], updateId }),
        (reason, rule) => QuestionOperationError.badDecision(reason, rule),
      ),
    );
  }

  /**
   * Declines a question: the agent's call fails with `ASK_CANCELLED` and the reason.
   *
   * @throws QuestionOperationError `NOT_FOUND`, `ALREADY_RESOLVED`, `NO_WORKER` or `TIMED_OUT`.
   */
  async decline(id: string, input: DeclineInput = {}): Promise<QuestionOutcome> {
    return this.bounded('decline', () =>
      this.update(id, (handle, updateId) => handle.executeUpdate(declineUpdate, { args: [input], updateId })),
    );
  }

  /**
   * Moves a pending question's deadline through the `extendDeadline` update: later (`'2h'`) or earlier
   * (`'-30m'`, or a number of milliseconds); a question with no deadline gets one, counted from now. Returns the
   * outcome, with the new `expiresAt`.
   *
   * @throws QuestionOperationError `INVALID_ARGS` naming the field, `NOT_FOUND`, `ALREADY_RESOLVED`, `NO_WORKER`
   *   or `TIMED_OUT`.
   */
  async extendDeadline(id: string, by: number | string, extendedBy?: string): Promise<QuestionOutcome> {
    // Checked here too, so a typo is named even when no worker runs.
    if (parseDuration(by, { signed: true }) === undefined) {
      throw QuestionOperationError.invalidArgs([
        'extendDeadline.by: must be a duration such as 2h or -30m, or a whole number of milliseconds',
      ]);
    }
    const input: ExtendDeadlineInput = extendedBy === undefined ? { by } : { by, extendedBy };
    return this.bounded('extend', () =>
      this.update(id, (handle, updateId) =>
        handle.executeUpdate(extendDeadlineUpdate, { args: [input], updateId }),
      ),
    );
  }

  /**
   * Sends an answer as the fire-and-forget `answer` signal, as the stock Temporal CLI does. The answer is
   * checked here first, so an invalid one is refused instead of being silently ignored by the workflow. A
   * signal needs no running worker: it is recorded when one next runs.
   *
   * @throws QuestionOperationError `ALREADY_RESOLVED`, `FORBIDDEN`, `BAD_ANSWER` or `NOT_FOUND`; nothing is sent.
   */
  async signalAnswer(id: string, input: SubmitAnswerInput): Promise<void> {
    checkBeforeSignal(await this.get(id), input);
    await this.client.workflow.getHandle(toWorkflowId(id)).signal(answerSignal, input);
  }

  /**
   * Sends one update that needs a running worker: a closed question is refused from the server's record alone
   * (naming who and when), and with `requireWorker`, a question no worker runs with `NO_WORKER`, nothing sent.
   * `badInput` builds the error for a validator's `BAD_ANSWER` (a decision's for `decide`).
   */
  private async update(
    id: string,
    send: (handle: WorkflowHandle, updateId: string) => Promise<QuestionOutcome>,
    badInput?: (reason: string, rule?: string) => QuestionOperationError,
  ): Promise<QuestionOutcome> {
    const handle = this.client.workflow.getHandle(toWorkflowId(id));
    const { running, taskQueue } = await lookAtQuestion(this.client, handle.workflowId);
    if (!running) {
      const description = await describeQuestion(handle);
      throw alreadyResolvedError(await recordFromHistory(this.client, handle, description));
    }
    const { requireWorker, workerPatienceMs } = this.callSettings;
    if (requireWorker && !(await this.workers.polls(taskQueue, workerPatienceMs))) {
      throw QuestionOperationError.noWorker(taskQueue);
    }
    const sendOnce = (): Promise<QuestionOutcome> =>
      this.send(id, handle, randomUUID(), (updateId) => send(handle, updateId), badInput);
    return await this.updateLanes.run(handle.workflowId, sendOnce, scopeDeadline(this.client));
  }

  /**
   * Sends an update under `updateId`, again with the same id when a worker crash or a brief outage interrupted
   * it, and turns its refusals into `QuestionOperationError`s: `badInput`'s for a validator's `BAD_ANSWER` (an
   * answer's by default); a lost race, a closed question or an id that names no question read back from the
   * record, naming the winner.
   */
  private async send(
    id: string,
    handle: WorkflowHandle,
    updateId: string,
    send: (updateId: string) => Promise<QuestionOutcome>,
    badInput = (reason: string, rule?: string) => QuestionOperationError.badAnswer(reason, rule),
  ): Promise<QuestionOutcome> {
    return await retryTransient(() => send(updateId), {
      maxAttempts: UPDATE_ATTEMPTS,
      retryIf: (error) => {
        throwIfRefused(error, badInput);
        // The worker crashed mid-task, or the server was briefly unreachable: the same update id again.
        return isInterruptedUpdate(error) || (isTransient(error) && !isDeadlineExceeded(error));
      },
    }).catch(async (error: unknown) => {
      if (!(error instanceof LostRace)) throw error;
      const current = (await this.read(id)).record;
      if (current.status !== 'pending') throw alreadyResolvedError(current);
      // The winner is accepted but not yet in the record read back (its workflow task is still completing, as
      // seen on PostgreSQL with 50 answers at once): the validator's refusal names who answered and when.
      const failure = validatorFailure(error.cause);
      if (failure?.type === ALREADY_RESOLVED) throw QuestionOperationError.alreadyResolved(failure.message);
      throw error.cause;
    });
  }
}
