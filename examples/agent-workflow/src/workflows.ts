/**
 * The agent, as a Temporal workflow: an AI SDK `generateText` loop whose model calls run as activities
 * (`temporalProvider`, served by `AiSdkPlugin` on the worker) and whose `ask_user_question` calls run as child
 * workflows on the ask-user worker's task queue. While a question waits, nothing holds it in memory: the
 * agent's state is its history, and the worker can restart or hold thousands of waiting agents.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { stepCountIs, generateText } from 'ai';
import { askUserQuestionWorkflowAiTool } from 'durable-ask-user/ai-workflow';

/** What the agent is asked to do. */
export interface DeployAgentInput {
  prompt: string;
  /** The model id the worker's provider serves. */
  model: string;
  /** Task queue of the ask-user worker (`ask-user worker`). Default `ask-user-question`. */
  askUserTaskQueue?: string;
}

/** What the agent did: its last text, and each tool result it read, in order. */
export interface DeployAgentResult {
  text: string;
  toolResults: string[];
}

export async function deployAgentWorkflow(input: DeployAgentInput): Promise<DeployAgentResult> {
  const result = await generateText({
    model: temporalProvider.languageModel(input.model),
    system: 'You deploy builds. Ask the user before anything irreversible.',
    prompt: input.prompt,
    tools: {
      ask_user_question: askUserQuestionWorkflowAiTool({
        ...(input.askUserTaskQueue === undefined ? {} : { taskQueue: input.askUserTaskQueue }),
      }),
    },
    stopWhen: stepCountIs(5),
  });
  return {
    text: result.text,
    toolResults: result.steps.flatMap((step) => step.toolResults.map((part) => String(part.output))),
  };
}
