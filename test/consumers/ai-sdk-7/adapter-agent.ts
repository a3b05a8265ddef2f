/**
 * `durable-ask-user/ai` in AI SDK 7, run in the installed consumer project (test/e2e/ai-sdk-7.test.ts):
 * `generateText` with the SDK's own `MockLanguageModelV4`, scripted to call `ask_user_question` once and then
 * to end, over `TemporalUserInteraction` on a real server. Prints one JSON line when `generateText` settles:
 * `{ "event": "result", text, toolOutputs }` with what the model's second step received as the tool's result,
 * or `{ "event": "rejected", name, message }`. SIGUSR2 aborts the run through `generateText`'s `abortSignal`.
 *
 *   adapter-agent.ts <server address> <ask-user task queue> <agent id> <tool call id>
 */
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Client, Connection } from '@temporalio/client';
import { TemporalUserInteraction } from 'durable-ask-user';
import { askUserQuestionAiTool } from 'durable-ask-user/ai';

const [address = '', taskQueue = '', agentId = '', toolCallId = ''] = process.argv.slice(2);

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
          toolName: 'ask_user_question',
          input: JSON.stringify({
            questions: [
              {
                id: 'deploy',
                question: 'Deploy build 1.4.2 to production now?',
                options: [{ label: 'Yes (Recommended)' }, { label: 'No' }],
              },
            ],
          }),
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

async function main(): Promise<void> {
  const connection = await Connection.connect({ address });
  const userInteraction = new TemporalUserInteraction({
    client: new Client({ connection, namespace: 'default' }),
    taskQueue,
  });
  const controller = new AbortController();
  process.on('SIGUSR2', () => controller.abort());
  try {
    const result = await generateText({
      model,
      tools: { ask_user_question: askUserQuestionAiTool(userInteraction, { agent: { id: agentId } }) },
      stopWhen: stepCountIs(3),
      prompt: 'Ship build 1.4.2.',
      abortSignal: controller.signal,
    });
    const prompt = model.doGenerateCalls[1]?.prompt ?? [];
    const toolOutputs = prompt
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content)
      .map((part) => (part.type === 'tool-result' ? part.output : part));
    console.log(JSON.stringify({ event: 'result', text: result.text, toolOutputs }));
  } catch (error) {
    const { name, message } = error as Error;
    console.log(JSON.stringify({ event: 'rejected', name, message }));
  } finally {
    await userInteraction.close();
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
