/**
 * The example's agent worker (`createAgentWorker` from examples/agent-workflow) with the AI SDK's own
 * `MockProviderV4` in place of a real model, run in the installed consumer project
 * (test/e2e/ai-sdk-7.test.ts). Its model `mock-deploy` asks `ask_user_question` once (tool call id `call-1`);
 * once it reads the tool's result, it ends with `The human said: <that result>`. Its model `mock-approval`
 * calls `deploy` once (tool call id `call-deploy`, `api` `1.4.2` x1), which waits for a decision; once it reads
 * the tool's result, it ends with `The tool said: <that result>`. Prints `agent worker
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

/** The text results of the tool calls so far. */
function toolResults(options: LanguageModelV4CallOptions): string[] {
  return options.prompt
    .filter((message) => message.role === 'tool')
    .flatMap((message) => message.content)
    .flatMap((part) =>
      part.type === 'tool-result' && part.output.type === 'text' ? [part.output.value] : [],
    );
}

/** The model's last step: `text`. */
function finish(text: string): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  };
}

/** A step that calls `toolName` with `input`. */
function call(toolCallId: string, toolName: string, input: unknown): LanguageModelV4GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** `mock-approval`: the first step calls `deploy`; a step that has its result ends the run, quoting it. */
async function deployOnce(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
  const results = toolResults(options);
  if (results.length > 0) return finish(`The tool said: ${results.join(' ')}`);
  return call('call-deploy', 'deploy', { service: 'api', version: '1.4.2', replicas: 1 });
}

/** `mock-deploy`: the first step asks; a step that has the tool's result ends the run, quoting it. */
async function respond(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
  const results = toolResults(options);
  if (results.length > 0) return finish(`The human said: ${results.join(' ')}`);
  const input = {
    questions: [
      {
        id: 'deploy',
        question: 'Deploy build 1.4.2 to production now?',
        options: [{ label: 'Yes (Recommended)' }, { label: 'No' }],
      },
    ],
  };
  return call('call-1', 'ask_user_question', input);
}

async function main(): Promise<void> {
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    ...(metricsAddress === undefined
      ? {}
      : { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } }),
  });
  const modelProvider = new MockProviderV4({
    languageModels: {
      'mock-deploy': new MockLanguageModelV4({ doGenerate: respond }),
      'mock-approval': new MockLanguageModelV4({ doGenerate: deployOnce }),
    },
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
