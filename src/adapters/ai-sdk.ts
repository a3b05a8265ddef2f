/**
 * `ask_user_question` as a Vercel AI SDK tool (`ai` 6 or 7; 7 needs Node 22). `ai` is an optional peer
 * dependency: it is loaded when `askUserQuestionAiTool` is first called, not when this module is, so the
 * `durable-ask-user/ai` entry (which also holds the OpenAI tool entries) loads without it.
 *
 * The tool's input schema is its own JSON Schema, passed through the SDK's `jsonSchema()` without a validator,
 * rather than the zod schema: converted by the SDK, the zod schema would reach the model with a `$schema` line
 * and `additionalProperties: false` on every object (more tokens than the budget measures), and arguments it
 * refused would reach the model as the SDK's validation dump. Instead `execute` validates through the tool, so
 * the model reads the contract's `Error: invalid arguments: <path>: <reason>`.
 */
import type * as AiSdk from 'ai';
import { UserInteractionError, formatToolError } from '../interaction/user-interaction-error';
import { loadAiSdk } from './load-ai-sdk';
import {
  createAskUserQuestionTool,
  type AskUserQuestionToolInput,
  type ToolExecutionContext,
} from '../tool/ask-user-question-tool';
import type { AskUserAgent, UserInteraction } from '../types';

/** Options of {@link askUserQuestionAiTool}. */
export interface AskUserQuestionAiToolOptions {
  /** Who asks: recorded with each question, and part of its durable key with the SDK's tool call id. */
  agent?: AskUserAgent;
}

/**
 * The AI SDK `tool()` of `ask_user_question` over `userInteraction`. Register it under the name
 * `ask_user_question`. The SDK's `toolCallId` becomes the question's durable key and its `abortSignal` withdraws
 * the question (with `TemporalUserInteraction` the workflow ends Canceled).
 *
 * `execute` resolves to the answer text `{"answers":[...]}`. It does not throw for a failed ask: it resolves
 * to the model-facing `Error: <message>` (`formatToolError`), so the model reads the contract's text and the
 * loop goes on, exactly as with the other adapters.
 *
 * @throws Error when the `ai` package is not installed.
 *
 * @example
 * const result = await generateText({
 *   model,
 *   tools: { ask_user_question: askUserQuestionAiTool(new TemporalUserInteraction(), { agent: { id: 'deploy-bot' } }) },
 *   stopWhen: stepCountIs(10),
 *   prompt,
 * });
 */
export function askUserQuestionAiTool(
  userInteraction: UserInteraction,
  options: AskUserQuestionAiToolOptions = {},
): AiSdk.Tool<AskUserQuestionToolInput, string> {
  const { jsonSchema, tool } = loadAiSdk('askUserQuestionAiTool');
  const askTool = createAskUserQuestionTool({ userInteraction });
  return tool<AskUserQuestionToolInput, string>({
    description: askTool.description,
    inputSchema: jsonSchema<AskUserQuestionToolInput>(askTool.parameters),
    execute: async (input, { toolCallId, abortSignal }) => {
      const exec: ToolExecutionContext = { toolCallId };
      if (abortSignal !== undefined) exec.signal = abortSignal;
      if (options.agent !== undefined) exec.agent = options.agent;
      try {
        return await askTool.execute(input, exec);
      } catch (error) {
        if (UserInteractionError.isInstance(error)) return formatToolError(error);
        throw error;
      }
    },
  });
}
