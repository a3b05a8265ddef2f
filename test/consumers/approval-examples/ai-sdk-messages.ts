import { generateText, stepCountIs, tool, type LanguageModel, type ModelMessage } from 'ai';
import { TemporalUserInteraction } from 'durable-ask-user';
import { resolveAiToolApprovals } from 'durable-ask-user/ai';
import { z } from 'zod';

const tools = {
  deploy: tool({
    description: 'Deploy a service at a version',
    inputSchema: z.object({ service: z.string(), version: z.string() }),
    needsApproval: true,
    execute: async ({ service, version }) => `deployed ${service} ${version}`,
  }),
};

/**
 * Runs the conversation until no call waits for approval. `save` keeps the messages: a restarted process calls
 * this again with them, and re-attaches to the same approvals.
 */
export async function runWithApprovals(
  model: LanguageModel,
  messages: ModelMessage[],
  save: (messages: ModelMessage[]) => Promise<void>,
): Promise<string> {
  const userInteraction = new TemporalUserInteraction();
  try {
    for (;;) {
      const result = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
      messages.push(...result.response.messages);
      await save(messages);
      const answers = await resolveAiToolApprovals(messages, {
        userInteraction,
        agent: { id: 'deploy-bot' },
        tools,
      });
      if (answers.length === 0) return result.text;
      messages.push(...answers);
    }
  } finally {
    await userInteraction.close();
  }
}
