/**
 * The agent, as a Temporal workflow: an AI SDK `generateText` loop whose model calls run as activities
 * (`temporalProvider`, served by `AiSdkPlugin` on the worker) and whose `ask_user_question` calls, and the
 * approvals its `deploy` calls wait for, run as child workflows on the ask-user worker's task queue. While a
 * question or an approval waits, nothing holds it in memory: the agent's state is its history, and the worker
 * can restart or hold thousands of waiting agents.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { stepCountIs, generateText, tool } from 'ai';
import { askUserQuestionWorkflowAiTool, durableApprovalWorkflowAiTool } from 'durable-ask-user/ai-workflow';
import { z } from 'zod';

/** What the agent is asked to do. */
export interface DeployAgentInput {
  prompt: string;
  /** The model id the worker's provider serves. */
  model: string;
  /** Task queue of the ask-user worker (`ask-user worker`). Default `ask-user-question`. */
  askUserTaskQueue?: string;
}

/** What `deploy` runs with. */
export interface DeployRun {
  service: string;
  version: string;
  replicas: number;
}

/** What the agent did: its last text, each tool result it read, in order, and the inputs `deploy` ran with. */
export interface DeployAgentResult {
  text: string;
  toolResults: string[];
  deployed: DeployRun[];
}

export async function deployAgentWorkflow(input: DeployAgentInput): Promise<DeployAgentResult> {
  const askUser = input.askUserTaskQueue === undefined ? {} : { taskQueue: input.askUserTaskQueue };
  const deployed: DeployRun[] = [];
  // Runs inside the workflow once a human approved the call (with the edited input for an edit); a deploy
  // that does I/O would call an activity here.
  const deploy = tool({
    description: 'Deploy a service at a version',
    inputSchema: z.object({
      service: z.string(),
      version: z.string(),
      replicas: z.number().int().min(1).max(10),
    }),
    execute: async (run: DeployRun) => {
      deployed.push(run);
      return `deployed ${run.service} ${run.version} x${run.replicas}`;
    },
  });
  const result = await generateText({
    model: temporalProvider.languageModel(input.model),
    system: 'You deploy builds. Ask the user before anything irreversible.',
    prompt: input.prompt,
    tools: {
      ask_user_question: askUserQuestionWorkflowAiTool(askUser),
      deploy: durableApprovalWorkflowAiTool(deploy, {
        ...askUser,
        toolName: 'deploy',
        description: 'Deploy to production',
      }),
    },
    stopWhen: stepCountIs(5),
  });
  return {
    text: result.text,
    toolResults: result.steps.flatMap((step) => step.toolResults.map((part) => String(part.output))),
    deployed,
  };
}
