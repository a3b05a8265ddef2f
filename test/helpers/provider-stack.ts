/**
 * The stack the approval and framework-hook integration tests run on: a test server, an in-process ask-user
 * worker on `taskQueue`, the durable provider an agent uses, and the ops client a human decides with.
 */
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

import { QuestionClient } from '../../src/ops';
import { TemporalUserInteraction } from '../../src/provider';
import { startTestEnvironment } from './temporal';
import { createAskUserTestWorker, runWorkers } from './workers';

/** A running {@link startProviderStack}. */
export interface ProviderStack {
  env: TestWorkflowEnvironment;
  client: Client;
  questions: QuestionClient;
  provider: TemporalUserInteraction;
  /** Closes the provider, stops the worker (surfacing how its runs ended) and tears the server down. */
  stop(): Promise<void>;
}

/** Starts a test server, a worker on `taskQueue`, a provider asking on it and an ops client. */
export async function startProviderStack(taskQueue: string): Promise<ProviderStack> {
  const env = await startTestEnvironment();
  const workers = runWorkers([await createAskUserTestWorker(env.nativeConnection, { taskQueue })]);
  const client = env.client;
  const provider = new TemporalUserInteraction({ client, taskQueue });
  return {
    env,
    client,
    questions: new QuestionClient(client),
    provider,
    async stop() {
      try {
        await provider.close();
        await workers.stop();
      } finally {
        await env.teardown();
      }
    },
  };
}
