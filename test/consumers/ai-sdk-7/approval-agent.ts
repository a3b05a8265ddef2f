/**
 * Durable approvals of `durable-ask-user/ai` in AI SDK 7, run in the installed consumer project
 * (test/e2e/ai-sdk-7.test.ts): `generateText` with the SDK's own `MockLanguageModelV4`, scripted to call a
 * `deploy` tool once with `{ service: 'api', version: '1.4.2' }` and then to end, over
 * `TemporalUserInteraction` on a real server. How the call is decided is the last argument:
 *
 * - `policy`: the SDK's `toolApproval` option, `aiToolApprovalPolicy` (the SDK runs or denies the call);
 * - `tool`: the tool wrapped with `durableApprovalAiTool` (it waits for the decision inside `execute`);
 * - `resume`: the SDK's own stop-and-resume flow, the tool with `needsApproval: true`: the first
 *   `generateText` stops with an approval request, `resolveAiToolApprovals` answers it, and a second one
 *   resumes.
 *
 * Prints one JSON line when `generateText` settles: `{ "event": "result", text, runs, toolOutputs }`, with
 * every input the tool ran with and what the model's second step received as the tool's result, or
 * `{ "event": "rejected", name, code, message, modelCalls }`. SIGUSR2 aborts the run through its abort signal.
 *
 *   approval-agent.ts <server address> <ask-user task queue> <agent id> <tool call id> <policy|tool|resume>
 */
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Client, Connection } from '@temporalio/client';
import { TemporalUserInteraction } from 'durable-ask-user';
import {
  aiToolApprovalPolicy,
  approvalStopped,
  durableApprovalAiTool,
  resolveAiToolApprovals,
} from 'durable-ask-user/ai';
import { z } from 'zod';

const [address = '', taskQueue = '', agentId = '', toolCallId = '', mode = 'policy'] = process.argv.slice(2);

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

const model = new MockLanguageModelV4({
  doGenerate: [
    {
      content: [
        {
          type: 'tool-call',
          toolCallId,
          toolName: 'deploy',
          input: JSON.stringify({ service: 'api', version: '1.4.2' }),
        },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    },
    {
      content: [{ type: 'text', text: 'Done.' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    },
  ],
});

const runs: unknown[] = [];

const deployOptions = {
  description: 'Deploy a service at a version',
  inputSchema: z.object({
    service: z.string().min(1),
    version: z.string().regex(/^\d+\.\d+\.\d+$/),
    replicas: z.number().int().min(1).max(10).default(1),
  }),
  execute: async (input: { service: string; version: string; replicas: number }) => {
    runs.push(input);
    return `deployed ${input.service} ${input.version} x${input.replicas}`;
  },
};
const deploy = tool(deployOptions);

async function main(): Promise<void> {
  const connection = await Connection.connect({ address });
  const userInteraction = new TemporalUserInteraction({
    client: new Client({ connection, namespace: 'default' }),
    taskQueue,
  });
  const agent = { id: agentId };
  const controller = new AbortController();
  process.on('SIGUSR2', () => controller.abort());
  try {
    const settings = { model, stopWhen: stepCountIs(3), abortSignal: controller.signal };
    const prompt = 'Ship build 1.4.2.';
    let result;
    if (mode === 'tool') {
      const tools = { deploy: durableApprovalAiTool(deploy, { userInteraction, toolName: 'deploy', agent }) };
      // A reject with `stop` ends the loop at its step.
      const stopWhen = [stepCountIs(3), approvalStopped];
      result = await generateText({ ...settings, stopWhen, tools, prompt });
    } else if (mode === 'resume') {
      const tools = { deploy: tool({ ...deployOptions, needsApproval: true }) };
      const messages: ModelMessage[] = [{ role: 'user', content: prompt }];
      const stopped = await generateText({ ...settings, tools, messages });
      messages.push(...stopped.response.messages);
      const answers = await resolveAiToolApprovals(messages, {
        userInteraction,
        agent,
        tools,
        signal: controller.signal,
      });
      result = await generateText({ ...settings, tools, messages: [...messages, ...answers] });
    } else {
      const toolApproval = aiToolApprovalPolicy({ userInteraction, agent, signal: controller.signal });
      result = await generateText({ ...settings, tools: { deploy }, toolApproval, prompt });
    }
    const toolOutputs = (model.doGenerateCalls[1]?.prompt ?? [])
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content)
      .map((part) => (part.type === 'tool-result' ? part.output : part));
    console.log(JSON.stringify({ event: 'result', text: result.text, runs, toolOutputs }));
  } catch (error) {
    const { name, message, code } = error as Error & { code?: string };
    const modelCalls = model.doGenerateCalls.length;
    console.log(JSON.stringify({ event: 'rejected', name, code, message, modelCalls }));
  } finally {
    await userInteraction.close();
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
