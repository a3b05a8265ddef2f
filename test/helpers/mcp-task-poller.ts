/**
 * A client process of its own that picks up a task another client started: `node --import tsx
 * test/helpers/mcp-task-poller.ts <endpoint url> <task id>` polls the task until it settles and prints its
 * outcome as one JSON line (`{ status, result? , error? }`).
 */
import { asTaskId, connectTaskClient } from './mcp-task-client';

async function main(): Promise<void> {
  const [url, taskId] = process.argv.slice(2);
  if (url === undefined || taskId === undefined) throw new Error('usage: mcp-task-poller <url> <task id>');
  const client = await connectTaskClient(new URL(url), { name: 'task-poller' });
  const { session } = client;
  try {
    const execution = await session.resumeTask({
      endpointId: url,
      generation: 'v2',
      taskId: asTaskId(taskId),
      originalOperation: 'tools/call',
    });
    const { outcome } = await execution.settle();
    const line =
      outcome.status === 'completed'
        ? { status: outcome.status, result: outcome.result }
        : outcome.status === 'failed'
          ? { status: outcome.status, error: outcome.error.message }
          : { status: outcome.status };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  } finally {
    await client.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
