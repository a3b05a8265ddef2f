/**
 * Standing grants from the ops side: grant (alone, or while approving a pending call), list and revoke. Every
 * change is an update on the agent's grants workflow, which checks it at workflow time against the operator's
 * grant policy; a list finds the grants workflows in visibility (eventually consistent, which is fine for a list)
 * and asks each one for its grants (exact). Reached as `QuestionClient.grants`.
 */
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { scopeDeadline, withCallScope } from '../connection/call-scope';
import { taskQueueFromEnv } from '../connection/connection-config';
import { GrpcStatus, grpcCode, isDeadlineExceeded, reasonOf } from '../connection/grpc-failures';
import { OPS_UPDATES_PER_WORKFLOW, UpdateLanes } from '../connection/update-lanes';
import { QuestionOperationError } from '../interaction/question-operation-error';
import { progressWords } from '../answer/two-person-rule';
import { ALREADY_RESOLVED, INVALID_ARGS } from '../question/failures';
import {
  GRANTS_WORKFLOW_TYPE,
  GRANT_FORBIDDEN,
  GRANT_NOT_FOUND,
  grantStatus,
  grantUpdate,
  grantsWorkflowId,
  grantsWorkflowIdOfGrant,
  listGrantsQuery,
  revokeGrantUpdate,
  type GrantRequest,
  type GrantStatus,
  type GrantsMemo,
  type StandingGrant,
} from '../question/grant-definitions';
import { GrantProblem, checkGrantRequest } from '../question/grant-rules';
import type { DecideInput, QuestionOutcome, QuestionRecord } from '../types';
import { WorkerPresence } from './task-queue-workers';
import { validatorFailure } from './update-refusals';

/** A grant as a list shows it: with its status now. */
export type ListedGrant = StandingGrant & { status: GrantStatus };

/** The scope of a grant made while approving a call: the call gives the agent and the tool. */
export type GrantScope = Omit<GrantRequest, 'agentId' | 'toolName' | 'grantedWith'>;

/** How many grants workflows a list reads at once. */
const LIST_CONCURRENCY = 8;

/** The grants workflow's id, for `grantsWorkflowId` of a grant id that has none. */
function workflowOfGrant(id: string): string {
  const workflowId = grantsWorkflowIdOfGrant(id);
  if (workflowId === undefined)
    throw new QuestionOperationError('NOT_FOUND', `no grant with id ${JSON.stringify(id)}`);
  return workflowId;
}

/** A refusal of the grants workflow as the error each surface shows; anything else as it came. */
function grantError(error: unknown): unknown {
  if (error instanceof GrantProblem)
    return new QuestionOperationError('INVALID_ARGS', `invalid grant: ${error.message}`);
  const failure = validatorFailure(error) ?? (error instanceof ApplicationFailure ? error : undefined);
  if (failure?.type === GRANT_FORBIDDEN) return QuestionOperationError.forbidden(failure.message);
  if (failure?.type === GRANT_NOT_FOUND) return new QuestionOperationError('NOT_FOUND', failure.message);
  if (failure?.type === INVALID_ARGS) return new QuestionOperationError('INVALID_ARGS', failure.message);
  if (failure?.type === ALREADY_RESOLVED)
    return new QuestionOperationError('ALREADY_RESOLVED', failure.message);
  if (grpcCode(error) === GrpcStatus.INVALID_ARGUMENT)
    return new QuestionOperationError(
      'INVALID_ARGS',
      `invalid grant: the server refused it: ${reasonOf(error)}`,
    );
  return error;
}

/** How `QuestionClient` bounds its calls; its grants follow the same settings. */
export interface CallSettings {
  /** The bound on each call (`QuestionClientOptions.callTimeoutMs`). */
  readonly callTimeoutMs: number;
  /** Whether a change is refused with `NO_WORKER` when no worker polls (`QuestionClientOptions.requireWorker`). */
  readonly requireWorker: boolean;
  /** How long a starting or reconnecting worker is awaited before `NO_WORKER`. */
  readonly workerPatienceMs: number;
}

/**
 * What grants need of `QuestionClient`: its Temporal client and call settings, a question's record and a
 * decision (approve and grant). Named here, not imported, so that the question client can own its grant client
 * without a cycle.
 */
export interface GrantQuestions {
  readonly client: Client;
  readonly callSettings: CallSettings;
  get(id: string): Promise<QuestionRecord>;
  decide(id: string, input: DecideInput): Promise<QuestionOutcome>;
}

/**
 * What "approve and grant" did: the approval's outcome, and the grant when the approval decided the call. An
 * approval only counted toward the two-person rule (the call still pending) grants nothing, and `notGranted`
 * says why: a grant is one person's decision, and this call needs more than one.
 */
export type ApprovedAndGranted =
  | { outcome: QuestionOutcome; grant: StandingGrant; notGranted?: undefined }
  | { outcome: QuestionOutcome; grant?: undefined; notGranted: string };

/** Why a pending outcome after an approval grants nothing, or `undefined` when the approval decided the call. */
function notGrantedReason(outcome: QuestionOutcome): string | undefined {
  if (outcome.status !== 'pending') return undefined;
  return `the approval was counted (${progressWords(outcome)}) and the call waits for more; no grant was made: a grant is one person's decision, and this call needs more than one`;
}

/**
 * Runs one call of `client` within `timeoutMs`; running out is `TIMED_OUT`, saying the outcome is unknown. The
 * question client and its grants bound every call this way.
 */
export async function boundedCall<T>(
  client: Client,
  timeoutMs: number,
  operation: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await withCallScope(client, { deadline: Date.now() + timeoutMs }, call);
  } catch (error) {
    if (isDeadlineExceeded(error)) throw QuestionOperationError.timedOut(operation, timeoutMs / 1000, error);
    throw error;
  }
}

/** The ops side of standing grants. */
export class GrantClient {
  /** Whether a worker polls the grants' task queue, asked before a grant (see {@link grant}). */
  private readonly workers: WorkerPresence;
  /** An agent's grants and revocations, a few at a time on its grants workflow (`update-lanes.ts`). */
  private readonly updateLanes = new UpdateLanes(OPS_UPDATES_PER_WORKFLOW);

  /**
   * @param questions the question client whose Temporal client and call settings (`callTimeoutMs`,
   *   `requireWorker`) the grants use
   * @param taskQueue the task queue a new grants workflow starts on: the workers' (default `ASK_USER_TASK_QUEUE`)
   */
  constructor(
    private readonly questions: GrantQuestions,
    private readonly taskQueue: string = taskQueueFromEnv(),
  ) {
    this.workers = new WorkerPresence(questions.client);
  }

  /**
   * Grants: the agent's calls of the tool (in the request's scope) are approved with no person until the
   * expiry. The first grant of an agent starts its grants workflow with it.
   *
   * @throws QuestionOperationError `INVALID_ARGS` naming the field, `FORBIDDEN` when the operator's grant
   *   policy refuses it (naming the tool or the expiry and the setting)
   */
  async grant(request: GrantRequest): Promise<StandingGrant> {
    const client = this.questions.client;
    try {
      checkGrantRequest(request, Date.now());
      // The update would wait for a worker that never comes: the grants workflow runs on this task queue. A
      // worker that is starting, or reconnecting to a restarted server, gets the question client's patience to
      // poll, as before a decision; without `requireWorker` the update is sent, bounded by the call's bound.
      const { requireWorker, workerPatienceMs } = this.questions.callSettings;
      if (requireWorker && !(await this.workers.polls(this.taskQueue, workerPatienceMs))) {
        throw new QuestionOperationError(
          'NO_WORKER',
          `no ask-user worker is polling task queue ${JSON.stringify(this.taskQueue)}, so the grant was not made`,
        );
      }
      const workflowId = grantsWorkflowId(request.agentId);
      const memo: GrantsMemo = { agentId: request.agentId, activeGrants: 0 };
      const start = new WithStartWorkflowOperation(GRANTS_WORKFLOW_TYPE, {
        workflowId,
        taskQueue: this.taskQueue,
        args: [{ agentId: request.agentId }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        memo: { ...memo },
      });
      return await this.bounded('grant', () =>
        this.updateLanes.run(
          workflowId,
          () =>
            client.workflow.executeUpdateWithStart(grantUpdate, {
              args: [request],
              startWorkflowOperation: start,
            }),
          scopeDeadline(client),
        ),
      );
    } catch (error) {
      throw grantError(error);
    }
  }

  /**
   * Approves a pending call and grants its agent that tool in `scope` ("approve and grant"); a scope with neither
   * `input` nor `inputSchema` grants exactly the call's input, the narrowest. The approval is recorded first: a
   * call someone else decided meanwhile grants nothing. Under the two-person rule an approval may only be
   * counted (1 of 2), the call still pending: then nothing is granted, and `notGranted` says why (a grant is one
   * person's decision; it would approve the agent's later calls with no second person).
   *
   * @throws QuestionOperationError as `QuestionClient.decide`; then as {@link grant}, the call staying approved
   */
  async approveAndGrant(
    workflowId: string,
    decision: Omit<DecideInput, 'type'> & { type: 'approve' },
    scope: GrantScope,
  ): Promise<ApprovedAndGranted> {
    const record = await this.questions.get(workflowId);
    const agentId = record.agent?.id;
    if (record.approval === undefined || agentId === undefined) {
      throw new QuestionOperationError(
        'INVALID_ARGS',
        `${workflowId}: only an agent's approval can be granted`,
      );
    }
    const outcome = await this.questions.decide(workflowId, decision);
    const notGranted = notGrantedReason(outcome);
    if (notGranted !== undefined) return { outcome, notGranted };
    const exact = scope.input === undefined && scope.inputSchema === undefined;
    const grant = await this.grant({
      ...scope,
      ...(exact ? { input: record.approval.input } : {}),
      agentId,
      toolName: record.approval.toolName,
      grantedWith: workflowId,
    });
    return { outcome, grant };
  }

  /**
   * Revokes a grant: it covers nothing from this call on.
   *
   * @throws QuestionOperationError `NOT_FOUND`, `ALREADY_RESOLVED` (naming who revoked it, or when it expired),
   *   `INVALID_ARGS`
   */
  async revoke(id: string, revokedBy: string): Promise<StandingGrant> {
    const handle = this.questions.client.workflow.getHandle(workflowOfGrant(id));
    try {
      return await this.bounded('revoke-grant', () =>
        this.updateLanes.run(
          handle.workflowId,
          () => handle.executeUpdate(revokeGrantUpdate, { args: [{ id, revokedBy }] }),
          scopeDeadline(this.questions.client),
        ),
      );
    } catch (error) {
      if (error instanceof WorkflowNotFoundError)
        throw new QuestionOperationError('NOT_FOUND', `no grant with id ${JSON.stringify(id)}`);
      throw grantError(error);
    }
  }

  /** One agent's grants, newest first (none when it has no grants workflow). */
  async listAgent(agentId: string): Promise<ListedGrant[]> {
    const handle = this.questions.client.workflow.getHandle(grantsWorkflowId(agentId));
    try {
      const { grants } = await this.bounded('grants', () => handle.query(listGrantsQuery));
      const now = Date.now();
      return grants
        .map((grant) => ({ ...grant, status: grantStatus(grant, now) }))
        .sort((a, b) => b.grantedAt.localeCompare(a.grantedAt));
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return [];
      throw error;
    }
  }

  /**
   * Every agent's grants (or one agent's), newest first; with `status`, only those in it. The grants workflows
   * are found in visibility, their grants read from each.
   */
  async list(options: { agentId?: string; status?: GrantStatus } = {}): Promise<ListedGrant[]> {
    const agents = options.agentId === undefined ? await this.agentsWithGrants() : [options.agentId];
    const listed: ListedGrant[] = [];
    for (let index = 0; index < agents.length; index += LIST_CONCURRENCY) {
      const batch = agents.slice(index, index + LIST_CONCURRENCY);
      for (const grants of await Promise.all(batch.map((agent) => this.listAgent(agent))))
        listed.push(...grants);
    }
    return listed
      .filter((grant) => options.status === undefined || grant.status === options.status)
      .sort((a, b) => b.grantedAt.localeCompare(a.grantedAt));
  }

  /** Runs one call within the question client's `callTimeoutMs` ({@link boundedCall}). */
  private bounded<T>(operation: string, call: () => Promise<T>): Promise<T> {
    return boundedCall(this.questions.client, this.questions.callSettings.callTimeoutMs, operation, call);
  }

  /** The agents whose grants workflows run, from visibility. */
  private async agentsWithGrants(): Promise<string[]> {
    const agents: string[] = [];
    const query = `WorkflowType = '${GRANTS_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`;
    for await (const execution of this.questions.client.workflow.list({ query })) {
      const memo = (execution.memo ?? {}) as Partial<GrantsMemo>;
      if (typeof memo.agentId === 'string') agents.push(memo.agentId);
    }
    return agents;
  }
}
