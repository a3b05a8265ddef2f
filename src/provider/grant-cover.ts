/**
 * The provider's check, before an approval waits for a person: does one of the agent's standing grants cover
 * this call? One `coverCall` update on the agent's grants workflow answers it at workflow time (strongly
 * consistent: a grant revoked a moment ago is already gone) and counts the use, once per approval; an approval
 * whose workflow then does not let the grant decide takes it back (`grantNotUsed`). An agent with no grants
 * workflow has no grants.
 *
 * The server takes at most 10 updates in flight on one workflow (`history.maxInFlightUpdates`) and refuses the
 * rest (RESOURCE_EXHAUSTED, which the SDK retries with a growing backoff: 64 at once took over 15 s). So one
 * provider sends at most {@link MAX_CHECKS_IN_FLIGHT} checks to an agent's grants workflow at a time, and queues
 * the others in order (`update-lanes.ts`). Transient failures are retried within the bound, as every other call
 * of the provider is; a check that still fails leaves the call to a person, which is always safe.
 *
 * Questions never come here: only `requestApproval` checks, so an ask costs nothing more.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { isClosedWorkflowError, isInterruptedUpdate, isTransient } from '../connection/grpc-failures';
import { retryTransient } from '../connection/retry-transient';
import { TurnTimedOut, UpdateLanes } from '../connection/update-lanes';
import type { ApprovalGrant, ApprovalRequest } from '../types';
import { coverCallUpdate, grantsWorkflowId } from '../question/grant-definitions';

/** Checks one provider sends to one grants workflow at once: under the server's 10 updates in flight. */
export const MAX_CHECKS_IN_FLIGHT = 8;

/** The longest one attempt of a check may take before it is sent again (within the caller's bound). */
const ATTEMPT_MS = 3_000;

/** The grant checks of one provider, at most {@link MAX_CHECKS_IN_FLIGHT} at a time per grants workflow. */
export class GrantChecks {
  private readonly lanes = new UpdateLanes(MAX_CHECKS_IN_FLIGHT);

  /**
   * {@link coveringGrant}, queued behind the checks already in flight to the same agent's grants. The time spent
   * in the queue counts against `deadline` (epoch milliseconds): a check whose turn comes after it is not sent,
   * and a person decides, so a queue never stretches the caller's bound.
   */
  async covering(
    client: Client,
    request: Pick<ApprovalRequest, 'agent' | 'toolName' | 'input' | 'signal'>,
    workflowId: string,
    deadline: number,
  ): Promise<ApprovalGrant | undefined> {
    if (request.agent === undefined) return undefined;
    const check = async (): Promise<ApprovalGrant | undefined> => {
      const left = deadline - Date.now();
      return left <= 0 ? undefined : await coveringGrant(client, request, workflowId, left);
    };
    return await this.lanes
      .run(grantsWorkflowId(request.agent.id), check, deadline)
      .catch((error: unknown) => {
        if (error instanceof TurnTimedOut) return undefined;
        throw error;
      });
  }
}

/**
 * The grant that covers the call, or `undefined` (no agent, no grants workflow, no grant covering it, or the
 * check failed past its bound).
 *
 * @param workflowId the approval's workflow id, sent with the check
 * @param timeoutMs how long the check may take: past it, a person decides
 */
export async function coveringGrant(
  client: Client,
  request: Pick<ApprovalRequest, 'agent' | 'toolName' | 'input' | 'signal'>,
  workflowId: string,
  timeoutMs: number,
): Promise<ApprovalGrant | undefined> {
  const agent = request.agent;
  if (agent === undefined) return undefined;
  const handle = client.workflow.getHandle(grantsWorkflowId(agent.id));
  const call = {
    toolName: request.toolName,
    input: request.input,
    workflowId,
    ...(agent.sessionId === undefined ? {} : { sessionId: agent.sessionId }),
  };
  const deadline = Date.now() + timeoutMs;
  try {
    // Each attempt gets at most ATTEMPT_MS of the bound, so an update the server lost (one in flight as the
    // grants workflow continued as new) is sent again while time is left; the use is counted once per approval,
    // so a second copy counts nothing more. A run that closed under the update is retried too (the next attempt reaches the new
    // run), and so is an update whose workflow task failed: the server fails the task that would continue as new
    // when signals arrived meanwhile (UnhandledCommand), and every update in that task with it.
    return await retryTransient(
      () =>
        client.withDeadline(Math.min(deadline, Date.now() + ATTEMPT_MS), () =>
          handle.executeUpdate(coverCallUpdate, { args: [call] }),
        ),
      {
        deadline,
        // No grants workflow at all (WorkflowNotFoundError) is an answer: the agent has no grants.
        retryIf: (error) =>
          !(error instanceof WorkflowNotFoundError) &&
          (isTransient(error) || isClosedWorkflowError(error) || isInterruptedUpdate(error)),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      },
    );
  } catch {
    // NOT_COVERED (the validator's refusal), no grants workflow, or a check that failed: a person decides.
    return undefined;
  }
}
