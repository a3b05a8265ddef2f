/**
 * The provider's check, before an approval waits for a person: does one of the agent's standing grants cover
 * this call? One `coverCall` update on the agent's grants workflow answers it at workflow time (strongly
 * consistent: a grant revoked a moment ago is already gone), and records the use. An agent with no grants
 * workflow has no grants; any other failure of the check leaves the call to a person, which is always safe.
 *
 * Questions never come here: only `requestApproval` checks, so an ask costs nothing more.
 */
import type { Client } from '@temporalio/client';
import type { ApprovalGrant, ApprovalRequest } from '../types';
import { coverCallUpdate, grantsWorkflowId } from '../question/grant-definitions';

/**
 * The grant that covers the call, or `undefined` (no agent, no grants workflow, no grant covering it, or the
 * check failed).
 *
 * @param workflowId the approval's workflow id, which the grant keeps as its last use
 * @param timeoutMs how long the check may take: past it, a person decides
 */
export async function coveringGrant(
  client: Client,
  request: Pick<ApprovalRequest, 'agent' | 'toolName' | 'input'>,
  workflowId: string,
  timeoutMs: number,
): Promise<ApprovalGrant | undefined> {
  const agent = request.agent;
  if (agent === undefined) return undefined;
  const handle = client.workflow.getHandle(grantsWorkflowId(agent.id));
  try {
    return await client.withDeadline(Date.now() + timeoutMs, () =>
      handle.executeUpdate(coverCallUpdate, {
        args: [
          {
            toolName: request.toolName,
            input: request.input,
            workflowId,
            ...(agent.sessionId === undefined ? {} : { sessionId: agent.sessionId }),
          },
        ],
      }),
    );
  } catch {
    // NOT_COVERED (the validator's refusal), no grants workflow, or a failed check: a person decides.
    return undefined;
  }
}
