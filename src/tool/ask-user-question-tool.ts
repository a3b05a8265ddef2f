/**
 * The model-facing `ask_user_question` tool. It translates the model's arguments into an
 * `AskUserQuestionRequest`, hands it to `ctx.userInteraction.ask()`, checks what comes back against the
 * answer rules and returns the compact JSON text. It renders no UI and does not know how answers are collected.
 */
import type { z } from 'zod';
import { checkAnswer, serializeAnswer } from '../answer/answer-rules';
import { UserInteractionError } from '../interaction/user-interaction-error';
import { errorText } from '../common';
import { assertNotAborted, budgetRefusal } from '../interaction/ask-request-guard';
import type { AskUserAgent, AskUserQuestion, AskUserQuestionRequest, UserInteraction } from '../types';
import {
  ASK_USER_QUESTION_DESCRIPTION,
  ASK_USER_QUESTION_TOOL_NAME,
  askUserQuestionArgsSchema,
  askUserQuestionJsonSchema,
  type AskUserQuestionArgs,
} from './ask-user-question-schema';
import { parseAskUserQuestionArgs } from './parse-arguments';

/** What the agent loop passes with each tool call. */
export interface ToolExecutionContext {
  /** The turn's abort signal; aborting it withdraws the question. */
  signal?: AbortSignal;
  toolCallId?: string;
  agent?: AskUserAgent;
}

/** The tool as an agent loop registers it. */
export interface AskUserQuestionTool {
  name: typeof ASK_USER_QUESTION_TOOL_NAME;
  description: string;
  /** The zod schema of the arguments. */
  inputSchema: typeof askUserQuestionArgsSchema;
  /** The JSON Schema the model sees, generated from `inputSchema`. */
  parameters: Record<string, unknown>;
  /**
   * Asks and waits. Resolves to `{"answers":[...]}` text; rejects with a `UserInteractionError`
   * (render it for the model with `formatToolError`).
   */
  execute(args: unknown, exec?: ToolExecutionContext): Promise<string>;
}

/** Converts validated model arguments into the seam's question shape (`multi_select` → `multiSelect`). */
export function toAskUserQuestions(args: AskUserQuestionArgs): AskUserQuestion[] {
  return args.questions.map((question) => {
    const converted: AskUserQuestion = { id: question.id, question: question.question };
    if (question.header !== undefined) converted.header = question.header;
    if (question.options !== undefined) {
      converted.options = question.options.map((option) =>
        option.description === undefined
          ? { label: option.label }
          : { label: option.label, description: option.description },
      );
    }
    if (question.multi_select !== undefined) converted.multiSelect = question.multi_select;
    return converted;
  });
}

/** Rejects with `ASK_ABORTED` once `signal` aborts; never settles otherwise. Returns a detach function. */
function abortPromise(signal: AbortSignal): { promise: Promise<never>; detach: () => void } {
  let detach = (): void => {};
  const promise = new Promise<never>((_resolve, reject) => {
    const onAbort = (): void => reject(UserInteractionError.aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    detach = () => signal.removeEventListener('abort', onAbort);
  });
  return { promise, detach };
}

/**
 * Creates the `ask_user_question` tool over a user-interaction provider or service.
 *
 * @example
 * const tool = createAskUserQuestionTool({ userInteraction: new TemporalUserInteraction() });
 * const text = await tool.execute(modelArgs, { toolCallId, signal, agent: { id: 'deploy-bot' } });
 */
export function createAskUserQuestionTool(context: {
  userInteraction: UserInteraction;
}): AskUserQuestionTool {
  const { userInteraction } = context;

  async function execute(args: unknown, exec: ToolExecutionContext = {}): Promise<string> {
    const { signal } = exec;
    assertNotAborted(signal);
    const questions = toAskUserQuestions(parseAskUserQuestionArgs(args));

    const request: AskUserQuestionRequest = { questions };
    if (exec.agent !== undefined) request.agent = exec.agent;
    if (exec.toolCallId !== undefined) request.toolCallId = exec.toolCallId;
    if (signal !== undefined) request.signal = signal;
    // The byte budget is part of the model's arguments (the contract), so it holds whatever provider answers.
    const overBudget = budgetRefusal(questions);
    if (overBudget !== undefined) throw overBudget;

    // The turn's signal settles the call even when a provider ignores it: the model must never wait on a
    // question nobody can answer any more.
    const aborted = signal === undefined ? undefined : abortPromise(signal);
    let raw: unknown;
    try {
      // `Promise.resolve` so that a provider written in plain JavaScript that returns its answer directly
      // (not a promise) is read like any other, instead of failing on the `.catch` below.
      const asked = Promise.resolve(userInteraction.ask(request));
      if (aborted === undefined) {
        raw = await asked;
      } else {
        // Once the abort wins the race, a later rejection of `asked` must not surface as unhandled.
        asked.catch(() => undefined);
        raw = await Promise.race([asked, aborted.promise]);
      }
    } catch (error) {
      if (UserInteractionError.isInstance(error)) throw error;
      throw UserInteractionError.unavailable(errorText(error), error);
    } finally {
      aborted?.detach();
    }

    const checked = checkAnswer(questions, raw);
    if (!checked.ok) throw UserInteractionError.badAnswer(checked.reason, checked.rule);
    return serializeAnswer(checked.answer);
  }

  return {
    name: ASK_USER_QUESTION_TOOL_NAME,
    description: ASK_USER_QUESTION_DESCRIPTION,
    inputSchema: askUserQuestionArgsSchema,
    parameters: askUserQuestionJsonSchema,
    execute,
  };
}

/** The arguments type the model sends, for loops that want it. */
export type AskUserQuestionToolInput = z.input<typeof askUserQuestionArgsSchema>;
