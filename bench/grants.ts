/**
 * The grants part of `npm run bench` (`--only grants`): an approval that a standing grant covers, against the
 * floor's round trip (a bare workflow started, signalled and awaited), with no human step. Beside it, in the same
 * interleaved rounds, the floor, ours answering a question (which never consults grants, so its figures must not
 * move) and ours approving by a person (whose provider now asks the agent's grants workflow first, and finds none).
 *
 * The grant covers the tool `deploy` for input matching the approval workload's schema, for an agent of its own;
 * the agent's provider asks `coverCall` on the grants workflow (one update), then starts the approval with the
 * grant, which the workflow records approved in its first task, and completes (the check counted the use).
 */
import { randomUUID } from 'node:crypto';

import { questionWorkflowId } from '../src';
import { GrantClient } from '../src/ops';
import {
  APPROVAL_SCHEMA,
  checkDeployed,
  deployInput,
  deployTool,
  historyOf,
  oursSides,
  type TemporalTarget,
  type Workload,
} from './workloads';

/** How long a covered call may take before the bench counts it as one that fell to a person. */
const COVERED_WITHIN_MS = 60_000;

/** Rejects after {@link COVERED_WITHIN_MS}, naming the call (its timer does not hold the process open). */
function fellToAPerson(key: string): Promise<never> {
  return new Promise((_resolve, reject) => {
    setTimeout(
      () => reject(new Error(`approval ${key} was not approved by its grant within ${COVERED_WITHIN_MS} ms`)),
      COVERED_WITHIN_MS,
    ).unref();
  });
}

/** Ours: `requireApproval` over `TemporalUserInteraction`, every call covered by a standing grant. */
export async function grantWorkload(
  target: TemporalTarget,
  workerPid: number | undefined,
  taskQueue: string,
): Promise<Workload> {
  const { connections, provider, answerer, questions } = await oursSides(target, taskQueue);
  const agent = { id: `bench-granted-${randomUUID()}` };
  const grant = await new GrantClient(questions, taskQueue).grant({
    agentId: agent.id,
    toolName: 'deploy',
    inputSchema: APPROVAL_SCHEMA,
    expireAfter: '1d',
    grantedBy: 'bench-decider',
  });
  const deploy = deployTool(provider);
  const workflowIds = new Map<string, string>();
  return {
    name: 'ours, approval by grant',
    group: 'ours',
    floor: 'floor, signal',
    description:
      'requireApproval + TemporalUserInteraction, each call covered by a standing grant (tool and input schema): the coverCall update (which counts the use), then the approval started and recorded approved by the grant; no human step; ratios against floor, signal',
    processes: { server: target.serverPid, worker: workerPid },
    async question(key) {
      const input = deployInput(key);
      // A covered call that fell to a person (its check failed past the bound) waits for a decision nobody here
      // gives: it fails the question after a bound instead of hanging the run, and the table counts it.
      const decided = deploy.execute(input, { toolCallId: key, agent });
      const text = await Promise.race([decided, fellToAPerson(key)]);
      checkDeployed(key, input, text);
      workflowIds.set(key, questionWorkflowId({ agent, toolCallId: key }, randomUUID));
    },
    calls: () => ({ agent: connections.agentCalls.read(), answerer: connections.answererCalls.read() }),
    history: async (key) => await historyOf(answerer, workflowIds.get(key) ?? key),
    async close() {
      // The bench's server is thrown away with its grants; the grant is revoked so the record says so.
      await new GrantClient(questions, taskQueue).revoke(grant.id, 'bench-decider');
      await provider.close();
      await connections.agent.close();
      await connections.answerer.close();
    },
  };
}
