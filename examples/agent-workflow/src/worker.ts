/**
 * The agent's worker: runs `deployAgentWorkflow` and, through `AiSdkPlugin`, the model calls as activities.
 * The questions themselves run on the ask-user worker (`npx ask-user worker`), on its own task queue.
 *
 *   OPENAI_API_KEY=... npm run worker
 */
import type { ProviderV4 } from '@ai-sdk/provider';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { NativeConnection, Worker } from '@temporalio/worker';

/** The task queue the agent workflows run on. */
export const AGENT_TASK_QUEUE = 'deploy-agent';

/**
 * A worker for the agent workflows, whose model calls go to `modelProvider`. A cached agent workflow keeps its
 * own instance of the AI SDK in memory (megabytes); a waiting one evicted from the cache costs nothing and is
 * replayed from its history when its answer arrives. `maxCachedWorkflows` bounds the memory of a worker that
 * holds many waiting agents.
 */
export async function createAgentWorker(options: {
  connection: NativeConnection;
  modelProvider: ProviderV4;
  namespace?: string;
  taskQueue?: string;
  maxCachedWorkflows?: number;
}): Promise<Worker> {
  return await Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? AGENT_TASK_QUEUE,
    ...(options.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.maxCachedWorkflows }),
    workflowsPath: require.resolve('./workflows'),
    plugins: [new AiSdkPlugin({ modelProvider: options.modelProvider })],
  });
}

async function main(): Promise<void> {
  const { openai } = await import('@ai-sdk/openai');
  const connection = await NativeConnection.connect({
    address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233',
  });
  try {
    const worker = await createAgentWorker({ connection, modelProvider: openai });
    await worker.run();
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
