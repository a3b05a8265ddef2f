/**
 * An agent process of the fleet part's floor (`fleet-pending.ts`): it starts the bare signal workflow of
 * `floor-workflows.ts` once per key, at most {@link STARTS_IN_FLIGHT} at a time as `waiting-agent.ts` does, and
 * replies `asked` once all have started. It only starts them: the floor's way of waiting, one
 * `handle.result()` long poll per question, is measured by the waiting part (3 calls a minute per question), and
 * 100,000 of those long polls would load the server with their renewals while the starts are timed.
 *
 *   fleet-floor-agent.ts <server address> <task queue>
 *
 * Over IPC: `{ type: 'ask', keys }` → `asked`; `{ type: 'stop' }` closes its connection and exits.
 */
import { Client, Connection } from '@temporalio/client';

import { floorSignalWorkflow } from './floor-workflows';
import { benchArgs } from './workloads';

const STARTS_IN_FLIGHT = 64;

/** The one message this agent sends besides `ready`. */
export interface FloorAskedMessage {
  type: 'asked';
  started: number;
  startMs: number;
  startFailures: Record<string, number>;
}

async function main(): Promise<void> {
  const [address = '', taskQueue = ''] = process.argv.slice(2);
  if (address === '' || taskQueue === '')
    throw new Error('usage: fleet-floor-agent.ts <address> <task queue>');
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });

  const ask = async (keys: readonly string[]): Promise<void> => {
    const startedAt = performance.now();
    const startFailures: Record<string, number> = {};
    let started = 0;
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < keys.length) {
        const key = keys[next]!;
        next += 1;
        try {
          await client.workflow.start(floorSignalWorkflow, {
            workflowId: `bench-fleet-floor/${key}`,
            taskQueue,
            args: [{ questions: benchArgs.questions }],
          });
          started += 1;
        } catch (error) {
          const reason = (error instanceof Error ? error.message : String(error)).replace(/\d+/g, 'N');
          startFailures[reason] = (startFailures[reason] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: STARTS_IN_FLIGHT }, lane));
    const message: FloorAskedMessage = {
      type: 'asked',
      started,
      startMs: performance.now() - startedAt,
      startFailures,
    };
    process.send?.(message);
  };

  await new Promise<void>((resolve, reject) => {
    process.on('message', (message: { type?: string; keys?: string[] }) => {
      if (message.type === 'ask') ask(message.keys ?? []).catch(reject);
      else if (message.type === 'stop') resolve();
    });
    process.on('disconnect', () => resolve());
    process.send?.({ type: 'ready' });
  });
  await connection.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `fleet floor agent failed: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  },
);
