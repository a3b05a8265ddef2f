/**
 * The agent's worker: runs `deployAgentWorkflow` and, through `OpenAIAgentsPlugin`, the model calls as
 * activities. The questions and approvals themselves run on the ask-user worker (`npx ask-user worker`), on its
 * own task queue.
 *
 *   OPENAI_API_KEY=... npm run worker
 */
import type { ModelProvider } from '@openai/agents-core';
import { OpenAIAgentsPlugin } from '@temporalio/openai-agents';
import { NativeConnection, Worker, type BundleOptions } from '@temporalio/worker';

/** The task queue the agent workflows run on. */
export const AGENT_TASK_QUEUE = 'openai-deploy-agent';

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/**
 * The bundler setting the workflow bundle needs with `@temporalio/openai-agents` 1.23: `@openai/agents-core`
 * loads a module with a dynamic `import()`, which webpack splits into a chunk it would fetch at run time, and
 * the workflow sandbox has no way to fetch one (its first task fails with `Automatic publicPath is not
 * supported in this browser`). `eager` keeps the imported module in the bundle.
 */
export function eagerDynamicImports(config: WebpackConfig): WebpackConfig {
  const module = config.module ?? {};
  const parser = module.parser ?? {};
  return {
    ...config,
    module: {
      ...module,
      parser: { ...parser, javascript: { ...parser.javascript, dynamicImportMode: 'eager' } },
    },
  };
}

/**
 * A worker for the agent workflows, whose model calls go to `modelProvider`. `maxCachedWorkflows` bounds the
 * memory of a worker that holds many waiting agents: one evicted from the cache costs nothing and is replayed
 * from its history when its answer arrives.
 */
export async function createAgentWorker(options: {
  connection: NativeConnection;
  modelProvider: ModelProvider;
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
    bundlerOptions: { webpackConfigHook: eagerDynamicImports },
    plugins: [new OpenAIAgentsPlugin({ modelProvider: options.modelProvider })],
  });
}

async function main(): Promise<void> {
  const { OpenAIProvider } = await import('@openai/agents-openai');
  const connection = await NativeConnection.connect({
    address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233',
  });
  try {
    const worker = await createAgentWorker({ connection, modelProvider: new OpenAIProvider() });
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
