import { generateText, stepCountIs, tool, type LanguageModel } from 'ai';
import { TemporalUserInteraction } from 'durable-ask-user';
import { durableApprovalAiTool } from 'durable-ask-user/ai';
import { z } from 'zod';

const deploy = tool({
  description: 'Deploy a service at a version',
  inputSchema: z.object({ service: z.string(), version: z.string() }),
  execute: async ({ service, version }) => `deployed ${service} ${version}`,
});

/** Each deploy the model asks for waits for a decision, and runs as decided: as asked, or with the edited input. */
export async function deployWithApproval(model: LanguageModel, prompt: string): Promise<string> {
  const userInteraction = new TemporalUserInteraction();
  try {
    const result = await generateText({
      model,
      tools: {
        deploy: durableApprovalAiTool(deploy, {
          userInteraction,
          toolName: 'deploy',
          agent: { id: 'deploy-bot' },
        }),
      },
      stopWhen: stepCountIs(5),
      prompt,
    });
    return result.text;
  } finally {
    await userInteraction.close();
  }
}
