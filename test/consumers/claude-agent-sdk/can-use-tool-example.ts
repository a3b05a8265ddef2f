import { query } from '@anthropic-ai/claude-agent-sdk';
import { TemporalUserInteraction } from 'durable-ask-user';
import { claudeCanUseTool } from 'durable-ask-user/claude';

const userInteraction = new TemporalUserInteraction();
const canUseTool = claudeCanUseTool({
  userInteraction,
  agent: { id: 'build-bot' },
  needsApproval: (toolName) => toolName !== 'Read',
});
try {
  for await (const message of query({ prompt: 'Clean up the build folder', options: { canUseTool } })) {
    if (message.type === 'result') console.log(message.subtype);
  }
} finally {
  await userInteraction.close();
}
