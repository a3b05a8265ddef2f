/**
 * `ask_user_question` as an AI SDK tool for agents that are Temporal workflows: an AI SDK agent run inside a
 * workflow through `@temporalio/ai-sdk` (`AiSdkPlugin` on the worker, `temporalProvider` for the model). The
 * question runs as a child workflow of the agent (`childWorkflowUserInteraction`), so no process holds the
 * wait: the agent's state and its pending question sit in Temporal's history, and the agent's worker can
 * restart, or hold thousands of waiting agents, at no cost.
 *
 * Runs in the workflow sandbox: everything it loads (the tool, the answer rules, `ai`) is deterministic. It is
 * its own entry (`durable-ask-user/ai-workflow`) so that workflow bundles without `ai` never try to resolve it.
 */
import type * as AiSdk from 'ai';
import { definedFields } from '../common';
import type { AskUserQuestionToolInput } from '../tool/ask-user-question-tool';
import {
  childWorkflowUserInteraction,
  type AskUserQuestionChildOptions,
} from '../workflow-provider/ask-user-question-child';
import { askUserQuestionAiTool, type AskUserQuestionAiToolOptions } from './ai-sdk';
import { durableApprovalAiTool, type DurableApprovalAiToolOptions } from './ai-sdk-approval-tool';

/** Options of {@link askUserQuestionWorkflowAiTool}: where the question runs, and who asks. */
export interface AskUserQuestionWorkflowAiToolOptions
  extends AskUserQuestionChildOptions, AskUserQuestionAiToolOptions {}

/**
 * The AI SDK `tool()` of `ask_user_question` for workflow code. Register it under the name
 * `ask_user_question`. Each call asks as a child workflow keyed by the agent (default: this workflow's id) and
 * the model's tool call id, so a replayed agent re-attaches to its question rather than asking again.
 *
 * `execute` resolves to the answer text `{"answers":[...]}`, or to the contract's `Error: <message>` for a
 * declined, expired or withdrawn question. Cancelling the agent's scope (or the workflow) cancels the
 * question, which ends Canceled; so does aborting the `abortSignal` given to `generateText`.
 *
 * @example
 * const result = await generateText({
 *   model: temporalProvider.languageModel('gpt-4o'),
 *   tools: { ask_user_question: askUserQuestionWorkflowAiTool({ taskQueue: 'ask-user-question' }) },
 *   stopWhen: stepCountIs(10),
 *   prompt,
 * });
 */
export function askUserQuestionWorkflowAiTool(
  options: AskUserQuestionWorkflowAiToolOptions = {},
): AiSdk.Tool<AskUserQuestionToolInput, string> {
  const { agent, ...child } = options;
  return askUserQuestionAiTool(childWorkflowUserInteraction(child), definedFields({ agent }));
}

/** Options of {@link durableApprovalWorkflowAiTool}: where the approval runs, and what the reviewer reads. */
export interface DurableApprovalWorkflowAiToolOptions<Input>
  extends AskUserQuestionChildOptions, Omit<DurableApprovalAiToolOptions<Input>, 'userInteraction'> {}

/**
 * `durableApprovalAiTool` for workflow code: each call of `aiTool` that needs approval waits for a decision
 * that runs as a child workflow of the agent (`childWorkflowUserInteraction`), keyed by the agent (default:
 * this workflow's id) and the model's tool call id. The tool runs inside the workflow, after the decision: with
 * the original input (`approve`), the edited one (`edit`); a rejection or a response is the text the model
 * reads instead. So the tool must be deterministic, or call an activity, as any code of a workflow.
 *
 * @example
 * const deploy = tool({
 *   inputSchema: z.object({ service: z.string(), version: z.string() }),
 *   execute: async ({ service, version }) => await deployActivity(service, version),
 * });
 * const result = await generateText({
 *   model: temporalProvider.languageModel('gpt-4o'),
 *   tools: { deploy: durableApprovalWorkflowAiTool(deploy, { toolName: 'deploy', taskQueue: 'ask-user-question' }) },
 *   stopWhen: stepCountIs(10),
 *   prompt,
 * });
 */
export function durableApprovalWorkflowAiTool<Input, Output>(
  aiTool: AiSdk.Tool<Input, Output>,
  options: DurableApprovalWorkflowAiToolOptions<Input>,
): AiSdk.Tool<Input, Output | string> {
  const { taskQueue, timeoutMs, webhookUrls, workerDefaults, ...approval } = options;
  const userInteraction = childWorkflowUserInteraction(
    definedFields({ taskQueue, timeoutMs, webhookUrls, workerDefaults }),
  );
  return durableApprovalAiTool(aiTool, { ...approval, userInteraction });
}
