/**
 * Starts one agent run and prints what the agent did once a human has answered its question
 * (`npx ask-user list`, then `npx ask-user answer <id> ...`, or the inbox of `npx ask-user dev`).
 *
 *   npm start -- "Deploy build 1.4.2 to production."
 */
import { Client, Connection } from '@temporalio/client';

import type { deployAgentWorkflow } from './workflows';
import { AGENT_TASK_QUEUE } from './worker';

async function main(): Promise<void> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
  try {
    const client = new Client({ connection });
    const handle = await client.workflow.start<typeof deployAgentWorkflow>('deployAgentWorkflow', {
      taskQueue: AGENT_TASK_QUEUE,
      workflowId: `openai-deploy-agent-${Date.now()}`,
      args: [{ prompt: process.argv[2] ?? 'Deploy build 1.4.2 to production.', model: 'gpt-4o-mini' }],
    });
    console.log(`agent ${handle.workflowId} started; waiting for it to finish`);
    console.log(JSON.stringify(await handle.result(), null, 2));
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
