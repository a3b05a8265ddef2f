/**
 * The agent, as a Temporal workflow: an OpenAI Agents SDK agent run by `TemporalOpenAIRunner`
 * (`@temporalio/openai-agents`), whose model calls are activities (served by `OpenAIAgentsPlugin` on the
 * worker). Its tools run inside the workflow: `ask_user_question` asks, and `deploy` waits for a decision, each
 * as a child workflow on the ask-user worker's task queue (`childWorkflowUserInteraction`). While a question or
 * an approval waits, nothing holds it in memory: the agent's state is its history.
 *
 * Deterministic code only: this file runs in the workflow sandbox.
 */
import { Agent, tool } from '@openai/agents-core';
import { TemporalOpenAIRunner } from '@temporalio/openai-agents/workflow';
import { isCancellation } from '@temporalio/workflow';
import { withDurableApproval } from 'durable-ask-user/openai-agents';
import {
  childWorkflowUserInteraction,
  createAskUserQuestionTool,
  formatToolError,
} from 'durable-ask-user/workflow';
import { z } from 'zod';

/** A JSON Schema as the Agents SDK's `tool()` takes one for a non-strict tool. */
interface NonStrictParameters {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: true;
}

/** What `deploy` runs with. */
interface DeployRun {
  service: string;
  version: string;
  replicas: number;
}

/** What the agent is asked to do. */
export interface DeployAgentInput {
  prompt: string;
  /** The model name the worker's model provider serves. */
  model: string;
  /** Task queue of the ask-user worker (`ask-user worker`). Default `ask-user-question`. */
  askUserTaskQueue?: string;
}

/** What the agent did: its final output, and the inputs `deploy` ran with. */
export interface DeployAgentResult {
  text: string;
  deployed: DeployRun[];
}

export async function deployAgentWorkflow(input: DeployAgentInput): Promise<DeployAgentResult> {
  const userInteraction = childWorkflowUserInteraction(
    input.askUserTaskQueue === undefined ? {} : { taskQueue: input.askUserTaskQueue },
  );
  const deployed: DeployAgentResult['deployed'] = [];

  // The project's tool, as an Agents SDK function tool: the SDK's call id keys the question (with this
  // workflow's id), so a replayed agent re-attaches to its question rather than asking again.
  const ask = createAskUserQuestionTool({ userInteraction });
  const askUserQuestion = tool({
    name: ask.name,
    description: ask.description,
    parameters: ask.parameters as unknown as NonStrictParameters,
    strict: false,
    execute: async (args, _context, details) => {
      try {
        return await ask.execute(args, { toolCallId: details?.toolCall?.callId ?? '' });
      } catch (error) {
        // Cancelling the agent cancels its question, and the cancellation must reach Temporal.
        if (isCancellation(error)) throw error;
        return formatToolError(error);
      }
    },
  });

  // Runs only once a human has approved the call (or edited its input); a rejection's reason is what the
  // model reads instead. A deploy that does I/O would call an activity here.
  const deploy = tool(
    withDurableApproval(
      {
        name: 'deploy',
        description: 'Deploy a service at a version',
        parameters: z.object({
          service: z.string(),
          version: z.string(),
          replicas: z.number().int().min(1).max(10),
        }),
        execute: async (run: DeployRun) => {
          deployed.push(run);
          return `deployed ${run.service} ${run.version} x${run.replicas}`;
        },
      },
      { userInteraction, description: 'Deploy to production' },
    ),
  );

  const agent = new Agent({
    name: 'Deployer',
    instructions: 'You deploy builds. Ask the user before anything irreversible.',
    model: input.model,
    tools: [askUserQuestion, deploy],
  });
  const result = await new TemporalOpenAIRunner().run(agent, input.prompt, { maxTurns: 6 });
  return { text: String(result.finalOutput ?? ''), deployed };
}
