/**
 * `TemporalUserInteraction`: the durable provider. Each question is an `askUserQuestionWorkflow`; the agent
 * only waits on its result, so the agent, the worker or the server can restart while the question is pending.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { definedFields } from '../common';
import { retryTransient } from '../connection/retry-transient';
import { UserInteractionError } from '../interaction/user-interaction-error';
import { guardAskRequest } from '../interaction/ask-request-guard';
import { guardApprovalRequest, requestedByProblem } from '../interaction/approval-request-guard';
import type {
  ApprovalDecision,
  ApprovalRequest,
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  AskUserQuestionWorkflowResult,
  QuestionPolicies,
  UserInteraction,
} from '../types';
import { validateWebhookUrls } from '../question/webhook-target';
import { checkPoliciesOption } from '../question/question-policy';
import { grantDecisionRefusal } from '../answer/two-person-rule';
import {
  answerFromResult,
  approvalStart,
  decisionFromResult,
  questionStart,
  type QuestionSettings,
  type QuestionStart,
} from '../question/question-start';
import { connectToTemporal } from '../connection/connect';
import { taskQueueFromEnv } from '../connection/connection-config';
import { ConnectionHealth } from './connection-health';
import { isTransient, reasonOf } from '../connection/grpc-failures';
import { QuestionWaiter, type QuestionWaiterOptions } from './question-waiter';
import { isAborted, startOrAttach, type Session } from './question-starter';
import { GrantChecks } from './grant-cover';

/** Options of `TemporalUserInteraction`. All optional: without a client it connects from the environment. */
export interface TemporalUserInteractionOptions extends QuestionWaiterOptions {
  /** A connected client. Without one, a connection is opened from `TEMPORAL_*` settings on first use. */
  client?: Client;
  /** Task queue of the ask-user worker. Default `ASK_USER_TASK_QUEUE`, else `ask-user-question`. */
  taskQueue?: string;
  /** Config profile to load when no client is given. */
  profile?: string;
  /**
   * How long the server may be unreachable (to connect, to start or re-attach, while waiting) before
   * `ask()` fails with `ASK_UNAVAILABLE`. A server that answers, however slowly, is never "unreachable".
   * The question itself stays durable. Default 15 s.
   */
  unavailableTimeoutMs?: number;
  /** Deadline after which an unanswered question expires (`ASK_EXPIRED`). Default: none, wait forever. */
  questionTimeoutMs?: number;
  /** Extra webhook URLs notified for questions asked through this provider, besides the worker's. */
  webhookUrls?: string[];
  /**
   * Policies for questions asked through this provider (deadline and its outcome, reminders, escalation),
   * with overrides by agent id. They win, field by field, over the worker's; `expireAfter` over
   * `questionTimeoutMs`.
   */
  policy?: QuestionPolicies;
  /**
   * `false`: questions take no webhook URLs or policy from the worker (set them here instead), and each skips
   * the start-time local activity that fetches the worker's: one history event and one workflow activation less
   * per question. Default true.
   */
  workerDefaults?: boolean;
  /**
   * Who asks for the approvals of this provider: the agent's owner, for a request that names nobody itself
   * (`ApprovalRequest.requestedBy`, which `requireApproval` sets per call). A policy's `forbidSelfApproval`
   * keeps them from deciding.
   */
  requestedBy?: string;
}

const DEFAULT_UNAVAILABLE_TIMEOUT_MS = 15_000;

/**
 * A step before the start, once the session is open (an approval's grant check, which may set the start's
 * grant); `deadline` (epoch ms) ends the outage bound that it and the start share.
 */
type Prepare = (session: Session, deadline: number) => Promise<void>;

function positiveOption(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
    throw UserInteractionError.invalidOptions('TemporalUserInteraction', name, 'must be a positive number');
  }
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
  private sessionPromise: Promise<Session> | undefined;
  /** Start requests and cancellation requests still out, which `close()` waits for. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** The standing-grant checks of approvals, queued per agent (`grant-cover.ts`). */
  private readonly grantChecks = new GrantChecks();

  /**
   * @throws UserInteractionError `INVALID_OPTIONS` naming the option when a duration or count is not a
   *   positive number, or a webhook URL is not http(s).
   */
  constructor(options: TemporalUserInteractionOptions = {}) {
    for (const name of [
      'unavailableTimeoutMs',
      'questionTimeoutMs',
      'maxLongPolls',
      'scanIntervalMs',
      'scanBatchSize',
    ] as const) {
      positiveOption(name, options[name]);
    }
    if (options.webhookUrls !== undefined) {
      try {
        validateWebhookUrls(options.webhookUrls);
      } catch (error) {
        throw UserInteractionError.invalidOptions('TemporalUserInteraction', 'webhookUrls', reasonOf(error));
      }
    }
    if (options.policy !== undefined) checkPoliciesOption(options.policy, 'TemporalUserInteraction');
    const requestedBy = requestedByProblem(options.requestedBy);
    if (requestedBy !== undefined) {
      throw UserInteractionError.invalidOptions('TemporalUserInteraction', 'requestedBy', requestedBy);
    }
    this.options = options;
    this.unavailableTimeoutMs = options.unavailableTimeoutMs ?? DEFAULT_UNAVAILABLE_TIMEOUT_MS;
    if (options.client !== undefined) this.sessionPromise = Promise.resolve(this.session(options.client));
  }

  /** The task queue questions are started on. */
  get taskQueue(): string {
    return this.options.taskQueue ?? taskQueueFromEnv();
  }

  /** The client in use, connecting first when none was given. */
  async client(): Promise<Client> {
    return (await this.open()).client;
  }

  /**
   * Waits for start and cancellation requests still in flight (an aborted ask cancels its workflow after the
   * tool has already returned `ASK_ABORTED`), then closes the connection this provider opened itself; a
   * client passed in is left to its owner. Asks still waiting fail with `ASK_UNAVAILABLE`; their questions stay
   * pending on the server, and asking again with the same tool call id re-attaches. Call it before the process
   * exits, or an abort may never reach the server.
   */
  async close(): Promise<void> {
    // A start still out may be followed by a cancellation (its ask was aborted meanwhile): wait for both.
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    const opened = this.sessionPromise;
    if (opened === undefined) return;
    const session = await opened.catch(() => undefined);
    session?.waiter.closeAll(UserInteractionError.unavailable('the provider was closed'));
    if (session?.ownConnection === undefined) return; // a client passed in stays usable: its owner closes it
    this.sessionPromise = undefined;
    await session.ownConnection.close();
  }

  async ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> {
    // Free when the service already checked this request; a provider called directly checks it here.
    guardAskRequest(request);
    const result = await this.run(request.signal, () => questionStart(request, this.settings(), randomUUID));
    return answerFromResult(result);
  }

  /**
   * Waits durably for a decision on a tool call: the same workflow as a question, keyed by the tool call id,
   * so an agent that crashed and replays the call re-attaches to it, and gets the decision at once if it was
   * taken meanwhile. Aborting `signal` withdraws the approval (`ASK_ABORTED`).
   *
   * @throws UserInteractionError `INVALID_ARGS` naming the field, `ASK_ABORTED`, `ASK_UNAVAILABLE`, or
   *   `ASK_CONFLICT` when the tool call id already keys another call or a question.
   */
  async requestApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    guardApprovalRequest(request);
    try {
      const start = approvalStart(request, this.settings());
      // A standing grant that covers the call approves it as the approval starts, with no person; under a
      // policy that needs more than one approval a grant (one person's decision) cannot, so nothing is asked.
      // The check is part of the start: it spends the same outage bound, and `close()` waits for it.
      const checkGrants: Prepare = async (session, deadline) => {
        const grant =
          grantDecisionRefusal(start.input.policy ?? {}) !== undefined
            ? undefined
            : await this.grantChecks.covering(session.client, request, start.workflowId, deadline);
        if (grant !== undefined) start.input = { ...start.input, grant };
      };
      const result = await this.run(request.signal, () => start, checkGrants);
      return decisionFromResult(result);
    } catch (error) {
      throw UserInteractionError.forApproval(error, request.toolName);
    }
  }

  /** The operator's settings every question and approval of this provider starts with. */
  private settings(): QuestionSettings {
    const { questionTimeoutMs, webhookUrls, policy, workerDefaults, requestedBy } = this.options;
    return definedFields({ timeoutMs: questionTimeoutMs, webhookUrls, policy, workerDefaults, requestedBy });
  }

  /**
   * Starts a question or an approval (or re-attaches to it) and waits for its workflow's result.
   *
   * The cancellation request starts in the abort event itself, not once the wait notices: the tool settles
   * `ASK_ABORTED` at that same moment, and a caller that then calls `close()` must find it in flight. An
   * abort while the start is still out is caught right after it returns (`wait` sees the signal aborted and
   * calls `cancel` before the start leaves `inFlight`); `close()` waits for the start too, so that moment is
   * never missed. Without a signal nothing of this exists.
   */
  private async run(
    signal: AbortSignal | undefined,
    describe: () => QuestionStart,
    prepare?: Prepare,
  ): Promise<AskUserQuestionWorkflowResult> {
    const starting = this.start(describe, signal, prepare);
    this.inFlight.add(starting);
    let waiting: Promise<AskUserQuestionWorkflowResult>;
    let cancellation: Promise<void> | undefined;
    try {
      const { session, workflowId } = await starting;
      const cancel =
        signal === undefined
          ? undefined
          : () => void (cancellation ??= this.requestCancel(session.client, workflowId));
      waiting = session.waiter.wait(workflowId, signal, cancel);
    } finally {
      this.inFlight.delete(starting);
    }
    try {
      return await waiting;
    } catch (error) {
      // Requested only by an abort of `signal`, which also ended the wait.
      if (cancellation === undefined) throw error;
      await cancellation;
      throw UserInteractionError.aborted();
    }
  }

  /**
   * Connects, prepares the start (an approval checks its standing grants) and starts the question or re-attaches
   * to it. The preparation and the start share one outage bound, counted from the connection, under one watch
   * of it: an outage that the grant check met is the start's too, not a new one. The start request (questions,
   * memo, details) lives only until the question has started: a pending ask keeps its workflow id and its
   * session, which matters to a process holding thousands of them.
   */
  private async start(
    describe: () => QuestionStart,
    signal: AbortSignal | undefined,
    prepare: Prepare | undefined,
  ): Promise<{ session: Session; workflowId: string }> {
    const start = describe();
    const session = await this.open();
    if (isAborted(signal)) throw UserInteractionError.aborted();
    const startedAt = Date.now();
    return await session.health.watch(async () => {
      await prepare?.(session, startedAt + this.unavailableTimeoutMs);
      if (isAborted(signal)) throw UserInteractionError.aborted();
      return {
        session,
        workflowId: await startOrAttach(session, start, {
          taskQueue: this.taskQueue,
          unavailableTimeoutMs: this.unavailableTimeoutMs,
          startedAt,
          signal,
        }),
      };
    });
  }

  private open(): Promise<Session> {
    this.sessionPromise ??= this.connect().catch((error: unknown) => {
      this.sessionPromise = undefined; // let the next ask try again
      throw error;
    });
    return this.sessionPromise;
  }

  private async connect(): Promise<Session> {
    const { client, connection } = await connectToTemporal({
      ...(this.options.profile === undefined ? {} : { profile: this.options.profile }),
      connectTimeoutMs: this.unavailableTimeoutMs,
      // Every call this provider makes is retried here, within the outage bound and cancellable by an abort.
      sdkRetries: false,
    });
    return { ...this.session(client), ownConnection: connection };
  }

  private session(client: Client): Session {
    const health = new ConnectionHealth(client, { unavailableTimeoutMs: this.unavailableTimeoutMs });
    return { client, health, waiter: new QuestionWaiter(client, health, this.options) };
  }

  /**
   * Requests cancellation of the question, tracked so that `close()` waits for it. Best effort within the
   * unavailability bound: an unreachable question stays visible to ops, who can decline it.
   */
  private async requestCancel(client: Client, workflowId: string): Promise<void> {
    const handle = client.workflow.getHandle(workflowId);
    const deadline = Date.now() + this.unavailableTimeoutMs;
    const cancellation = retryTransient(() => client.withDeadline(deadline, () => handle.cancel()), {
      deadline,
      retryIf: isTransient,
    }).then(
      () => undefined,
      // Already closed, gone, or unreachable past the bound: nothing more to withdraw.
      () => undefined,
    );
    this.inFlight.add(cancellation);
    try {
      await cancellation;
    } finally {
      this.inFlight.delete(cancellation);
    }
  }
}
