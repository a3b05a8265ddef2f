import { generateText, stepCountIs, tool, type LanguageModel } from 'ai';
import { TemporalUserInteraction } from 'durable-ask-user';
import { aiToolApprovalPolicy } from 'durable-ask-user/ai';
import { z } from 'zod';

const tools = {
  deploy: tool({
    description: 'Deploy a service at a version',
    inputSchema: z.object({ service: z.string(), version: z.string() }),
    execute: async ({ service, version }) => `deployed ${service} ${version}`,
  }),
};

/** AI SDK 7: the SDK asks the policy about each deploy, and runs or denies the call on the person's decision. */
export async function deployWithApproval(model: LanguageModel, prompt: string): Promise<string> {
  const userInteraction = new TemporalUserInteraction();
  const controller = new AbortController();
  try {
    const result = await generateText({
      model,
      tools,
      toolApproval: aiToolApprovalPolicy({
        userInteraction,
        agent: { id: 'deploy-bot' },
        needsApproval: ({ toolName }) => toolName === 'deploy',
        signal: controller.signal,
      }),
      abortSignal: controller.signal,
      stopWhen: stepCountIs(5),
      prompt,
    });
    return result.text;
  } finally {
    await userInteraction.close();
  }
}
