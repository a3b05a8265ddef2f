/**
 * The example's agent worker (`createAgentWorker` from examples/openai-agents-workflow) with a scripted model in
 * place of a real one, run in the installed consumer project (test/e2e/openai-agents-workflow.test.ts and the
 * benchmark's waiting agents). It implements the Agents SDK's own `Model`, served through `OpenAIAgentsPlugin`
 * as the model activity, and keeps no state between requests: what it says depends only on the run's items.
 *
 * - `scripted-ask`: asks `ask_user_question` once (call id `call-ask`), then ends with
 *   `The human said: <the tool's result>`;
 * - `scripted-deploy`: asks as above, then calls `deploy` (call id `call-deploy`, `api` `1.4.2` x1), then ends
 *   with one line `<tool>: <result>` per tool result it read, in order.
 *
 * Prints `agent worker running` once polling, and shuts down cleanly on SIGTERM. For the benchmark: a third
 * argument serves the worker's own metrics for Prometheus at that address, and a fourth caps how many
 * workflows it keeps cached.
 *
 *   agent-worker.ts <server address> <agent task queue> [metrics address] [max cached workflows]
 */
import {
  Usage,
  type AgentInputItem,
  type AgentOutputItem,
  type Model,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from '@openai/agents-core';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';

import { createAgentWorker } from './worker';

const [address = '', taskQueue = '', metricsAddress, maxCached] = process.argv.slice(2);

const QUESTIONS = {
  questions: [
    {
      id: 'deploy',
      question: 'Deploy build 1.4.2 to production now?',
      options: [{ label: 'Yes (Recommended)' }, { label: 'No' }],
    },
  ],
};

/** The text of a tool output item as the model receives it. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map(outputText).join('');
  const { text } = output as { text?: unknown };
  return typeof text === 'string' ? text : JSON.stringify(output);
}

function functionCall(callId: string, name: string, input: unknown): AgentOutputItem {
  return { type: 'function_call', callId, name, arguments: JSON.stringify(input), status: 'completed' };
}

function message(text: string): AgentOutputItem {
  return {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text }],
  };
}

class ScriptedModel implements Model {
  constructor(private readonly name: string) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const items: AgentInputItem[] = typeof request.input === 'string' ? [] : request.input;
    const results = items.flatMap((item) =>
      item.type === 'function_call_result' ? [{ name: item.name, text: outputText(item.output) }] : [],
    );
    let output: AgentOutputItem;
    if (results.length === 0) output = functionCall('call-ask', 'ask_user_question', QUESTIONS);
    else if (this.name === 'scripted-ask') output = message(`The human said: ${results[0]!.text}`);
    else if (results.length === 1) {
      output = functionCall('call-deploy', 'deploy', { service: 'api', version: '1.4.2', replicas: 1 });
    } else output = message(results.map((result) => `${result.name}: ${result.text}`).join('\n'));
    return { usage: new Usage(), output: [output] };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error('the scripted model does not stream');
  }
}

const modelProvider: ModelProvider = {
  getModel: (name) => {
    if (name !== 'scripted-ask' && name !== 'scripted-deploy') throw new Error(`no model ${String(name)}`);
    return new ScriptedModel(name);
  },
};

async function main(): Promise<void> {
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    ...(metricsAddress === undefined
      ? {}
      : { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } }),
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
