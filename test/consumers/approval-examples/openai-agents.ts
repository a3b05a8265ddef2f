import { Agent, RunState, run, tool } from '@openai/agents';
import { TemporalUserInteraction } from 'durable-ask-user';
import { resolveInterruptions, withDurableApproval } from 'durable-ask-user/openai-agents';
import { z } from 'zod';

const userInteraction = new TemporalUserInteraction();
const approver = { id: 'deploy-bot' };

// Waits for the decision inside `execute`: the run never stops, and an edited input runs.
const deploy = tool(
  withDurableApproval(
    {
      name: 'deploy',
      description: 'Deploy a service at a version',
      parameters: z.object({ service: z.string(), version: z.string() }),
      execute: async ({ service, version }) => `deployed ${service} ${version}`,
    },
    { userInteraction, agent: approver },
  ),
);
export const opsAgent = new Agent({ name: 'ops', tools: [deploy] });

// The SDK's own human in the loop: the run stops at each call of a tool with `needsApproval`.
const rollback = tool({
  name: 'rollback',
  description: 'Roll a service back to its previous version',
  parameters: z.object({ service: z.string() }),
  needsApproval: true,
  execute: async ({ service }) => `rolled back ${service}`,
});
export const releaseAgent = new Agent({ name: 'release', tools: [rollback] });

/** Runs until no call waits for approval; `save` keeps the state a restarted process resumes from. */
export async function runWithApprovals(
  input: string,
  save: (state: string) => Promise<void>,
): Promise<unknown> {
  let result = await run(releaseAgent, input);
  while (result.interruptions.length > 0) {
    await save(result.state.toString());
    result = await run(
      releaseAgent,
      await resolveInterruptions(result, { userInteraction, agent: approver }),
    );
  }
  return result.finalOutput;
}

/** In a restarted process: the saved state re-attaches to the same approvals. */
export async function resumeRun(saved: string): Promise<unknown> {
  const state = await RunState.fromString(releaseAgent, saved);
  const result = await run(
    releaseAgent,
    await resolveInterruptions(state, { userInteraction, agent: approver }),
  );
  return result.finalOutput;
}
