/**
 * The example's agent worker (`createAgentWorker` from examples/agent-workflow) with the AI SDK's own
 * `MockProviderV4` in place of a real model, run in the installed consumer project
 * (test/e2e/ai-sdk-7.test.ts). Its model `mock-deploy` asks `ask_user_question` once (tool call id `call-1`);
 * once it reads the tool's result, it ends with `The human said: <that result>`. Prints `agent worker
 * running` once polling, and shuts down cleanly on SIGTERM. For the benchmark: a third argument serves the
 * worker's own metrics (every call it makes to the server, by operation) for Prometheus at that address, and a
 * fourth caps how many workflows it keeps cached (default: the SDK's).
 *
 *   agent-worker.ts <server address> <agent task queue> [metrics address] [max cached workflows]
 */
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { MockLanguageModelV4, MockProviderV4 } from 'ai/test';

import { createAgentWorker } from './worker';

const [address = '', taskQueue = '', metricsAddress, maxCached] = process.argv.slice(2);

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** The first step asks; a step that has the tool's result ends the run, quoting it. */
async function respond(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
  const results = options.prompt
    .filter((message) => message.role === 'tool')
    .flatMap((message) => message.content)
    .flatMap((part) =>
      part.type === 'tool-result' && part.output.type === 'text' ? [part.output.value] : [],
    );
  if (results.length > 0) {
    return {
      content: [{ type: 'text', text: `The human said: ${results.join(' ')}` }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    };
  }
  const input = {
    questions: [
      {
        id: 'deploy',
        question: 'Deploy build 1.4.2 to production now?',
        options: [{ label: 'Yes (Recommended)' }, { label: 'No' }],
      },
    ],
  };
  return {
    content: [
      {
        type: 'tool-call',
        toolCallId: 'call-1',
        toolName: 'ask_user_question',
        input: JSON.stringify(input),
      },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

async function main(): Promise<void> {
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    ...(metricsAddress === undefined
      ? {}
      : { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } }),
  });
  const modelProvider = new MockProviderV4({
    languageModels: { 'mock-deploy': new MockLanguageModelV4({ doGenerate: respond }) },
  });
  const connection = await NativeConnection.connect({ address });
  const worker = await createAgentWorker({
    connection,
    modelProvider,
    taskQueue,
    ...(maxCached === undefined ? {} : { maxCachedWorkflows: Number(maxCached) }),
  });
  process.once('SIGTERM', () => worker.shutdown());
  const running = worker.run();
  console.log('agent worker running');
  await running;
  await connection.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
