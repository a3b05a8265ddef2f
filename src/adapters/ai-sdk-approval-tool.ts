/**
 * `durableApprovalAiTool` (`ai` 6 and 7): an AI SDK tool that waits for a durable decision inside its `execute`,
 * so the step never stops, and every decision runs as decided: the original input, the edited one, or the
 * rejection or response text as the tool's result. Only the SDK's types are imported: the caller's own `tool()`
 * builds the tool and the caller's own `generateText` runs it; `ai` itself is loaded only to read the tool's
 * input schema.
 */
import type * as AiSdk from 'ai';
import { definedFields } from '../common';
import { UserInteractionError, formatToolError } from '../interaction/user-interaction-error';
import { approvalRequester, requireApproval, type ApprovalRequiredTool } from '../tool/require-approval';
import type { ApprovalDecision, AskUserAgent, JsonSchemaObject, UserInteraction } from '../types';
import { editedInput, jsonSchemaOf, type Outcome } from './ai-sdk-schema';

/** Options of {@link durableApprovalAiTool}. */
export interface DurableApprovalAiToolOptions<Input> {
  /** Where the approvals are asked: `TemporalUserInteraction` (durable), a `UserInteractionService`, ... */
  userInteraction: UserInteraction;
  /** The name the tool is registered under in `tools`: what the reviewer reads, and what the record keeps. */
  toolName: string;
  /** Who asks: recorded with each approval, and part of its durable key with the SDK's tool call id. */
  agent?: AskUserAgent;
  /**
   * Which calls wait for a decision, as the SDK's own `needsApproval` (a boolean, or a function of the input
   * and the call's options). Default: the tool's own `needsApproval`, or every call when it has none.
   */
  needsApproval?: AiSdk.Tool<Input, unknown>['needsApproval'];
  /** What the reviewer reads about the call. */
  description?: string | ((input: Input) => string);
  /**
   * The JSON Schema an edited input must satisfy, checked when it is decided. Default: the JSON Schema of the
   * tool's `inputSchema`, as the SDK sends it to the model.
   */
  inputSchema?: JsonSchemaObject;
  /**
   * What the model reads when the call is rejected. Default: `The user rejected this call of <tool>`,
   * with `: <reason>` when the reviewer gave one.
   */
  rejectedResult?: (decision: Extract<ApprovalDecision, { type: 'reject' }>, toolName: string) => string;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/** The final output of an `execute` result, as the SDK takes it: the last value of a stream of outputs. */
async function finalOutput<Output>(
  result: AsyncIterable<Output> | PromiseLike<Output> | Output,
): Promise<Output> {
  if (!isAsyncIterable(result)) return await result;
  let last: Output | undefined;
  for await (const output of result) last = output;
  return last as Output;
}

/**
 * An AI SDK `tool()` whose `execute` first waits for a durable decision on the call, keyed by `options.agent`
 * and the SDK's `toolCallId`; the SDK's `abortSignal` withdraws it (with `TemporalUserInteraction` its
 * workflow ends Canceled). The step never stops for approval, so an edit runs, which the SDK's own approval
 * flow cannot express:
 *
 * | decision  | the tool                                            | the model reads     |
 * | --------- | --------------------------------------------------- | ------------------- |
 * | `approve` | runs with the input the SDK parsed                  | the tool's result   |
 * | `edit`    | runs with the edited input, as its schema parses it | the tool's result   |
 * | `reject`  | does not run                                        | the rejection text  |
 * | `respond` | does not run                                        | the reviewer's text |
 *
 * Which calls wait is the tool's own `needsApproval` (or `options.needsApproval`), taken off the returned
 * tool so that the SDK does not stop the step for them as well. The edited input is checked against the
 * tool's JSON Schema when it is decided (refused there with the path and reason), then parsed by the tool's
 * schema as the model's input is; if that parse fails, the model reads `Error: ...` and the tool does not
 * run. A failure to get a decision (unreachable, expired without a policy, aborted) is what the model reads
 * too, `Error: <message>`.
 *
 * A tool whose `execute` is an `async function*` (preliminary results) stays one. A tool with a
 * `toModelOutput` keeps it for its own results; a rejection or a response reaches the model as text.
 *
 * @throws UserInteractionError `INVALID_OPTIONS`: `userInteraction` takes no approvals; `toolName` is empty;
 *   the tool has no `execute` (the caller runs it, and decides on it there); the tool has an `outputSchema`
 *   (a rejected or answered call returns text, which is no output of that schema).
 *
 * @example
 * import { generateText, stepCountIs, tool } from 'ai';
 * import { z } from 'zod';
 *
 * const deploy = tool({
 *   description: 'Deploy a service at a version',
 *   inputSchema: z.object({ service: z.string(), version: z.string() }),
 *   execute: async ({ service, version }) => `deployed ${service} ${version}`,
 * });
 * const result = await generateText({
 *   model,
 *   tools: {
 *     deploy: durableApprovalAiTool(deploy, {
 *       userInteraction: new TemporalUserInteraction(),
 *       toolName: 'deploy',
 *       agent: { id: 'deploy-bot' },
 *     }),
 *   },
 *   stopWhen: stepCountIs(5),
 *   prompt: 'Deploy api 1.4.2',
 * });
 */
export function durableApprovalAiTool<Input, Output>(
  aiTool: AiSdk.Tool<Input, Output>,
  options: DurableApprovalAiToolOptions<Input>,
): AiSdk.Tool<Input, Output | string> {
  const original = checkedTool(aiTool, options);
  const decide = decider(original, options);
  // A rejection or a response is text, which the tool's own `toModelOutput` was not written for.
  const notRun = new Map<string, string>();
  const skip = (toolCallId: string, text: string): string => {
    if (original.toModelOutput !== undefined) notRun.set(toolCallId, text);
    return text;
  };
  const { execute } = original;
  const isGenerator = Object.prototype.toString.call(execute) === '[object AsyncGeneratorFunction]';
  const approvedExecute = isGenerator
    ? async function* (
        input: Input,
        executionOptions: AiSdk.ToolExecutionOptions,
      ): AsyncGenerator<Output | string> {
        const outcome = await decide(input, executionOptions);
        if (!outcome.run) {
          yield skip(executionOptions.toolCallId, outcome.text);
          return;
        }
        yield* execute(outcome.input, executionOptions) as AsyncIterable<Output>;
      }
    : async (input: Input, executionOptions: AiSdk.ToolExecutionOptions): Promise<Output | string> => {
        const outcome = await decide(input, executionOptions);
        if (!outcome.run) return skip(executionOptions.toolCallId, outcome.text);
        return await finalOutput(execute(outcome.input, executionOptions));
      };

  const wrapped: Record<string, unknown> = { ...aiTool, execute: approvedExecute };
  delete wrapped.needsApproval;
  const { toModelOutput } = original;
  if (toModelOutput !== undefined) {
    wrapped.toModelOutput = (call: { toolCallId: string; input: Input; output: Output | string }) => {
      const text = notRun.get(call.toolCallId);
      if (text !== undefined && call.output === text) {
        notRun.delete(call.toolCallId);
        return { type: 'text', value: text };
      }
      return toModelOutput(call as { toolCallId: string; input: Input; output: Output });
    };
  }
  return wrapped as unknown as AiSdk.Tool<Input, Output | string>;
}

const OWNER = 'durableApprovalAiTool';

/** The parts of an AI SDK tool the wrapper reads, `execute` checked present. */
interface WrappedTool<Input, Output> {
  toolName: string;
  execute: (
    input: Input,
    options: AiSdk.ToolExecutionOptions,
  ) => AsyncIterable<Output> | PromiseLike<Output> | Output;
  inputSchema?: unknown;
  needsApproval?: AiSdk.Tool<Input, unknown>['needsApproval'];
  toModelOutput?: (call: { toolCallId: string; input: Input; output: Output }) => unknown;
}

/** The tool's parts, once the options and the tool are checked fit for waiting on a decision. */
function checkedTool<Input, Output>(
  aiTool: AiSdk.Tool<Input, Output>,
  options: DurableApprovalAiToolOptions<Input>,
): WrappedTool<Input, Output> {
  approvalRequester(options.userInteraction, OWNER);
  const { toolName } = options;
  if (typeof toolName !== 'string' || toolName.trim() === '') {
    throw UserInteractionError.invalidOptions(
      OWNER,
      'toolName',
      'give the name the tool is registered under in tools',
    );
  }
  const original = aiTool as Partial<WrappedTool<Input, Output>> & { outputSchema?: unknown };
  const { execute } = original;
  if (typeof execute !== 'function') {
    throw UserInteractionError.invalidOptions(
      OWNER,
      'execute',
      `${toolName} has none: a tool the caller runs is decided on where the caller runs it`,
    );
  }
  if (original.outputSchema !== undefined) {
    throw UserInteractionError.invalidOptions(
      OWNER,
      'outputSchema',
      'a rejected or answered call returns text, which is no output of that schema',
    );
  }
  return {
    ...definedFields({
      inputSchema: original.inputSchema,
      needsApproval: original.needsApproval,
      toModelOutput: original.toModelOutput,
    }),
    toolName,
    execute,
  };
}

type RunDecision = Extract<ApprovalDecision, { type: 'approve' | 'edit' }>;
type Decided<Input> = { input: Input; decision: RunDecision };

/**
 * How a call is decided: at once when it needs no decision, else through `requireApproval` (built on the first
 * call that needs one: the default schema of edits comes from converting the tool's input schema, which may be
 * asynchronous and loads `ai`), an edit parsed by the tool's schema before it runs.
 */
function decider<Input, Output>(
  tool: WrappedTool<Input, Output>,
  options: DurableApprovalAiToolOptions<Input>,
): (input: Input, executionOptions: AiSdk.ToolExecutionOptions) => Promise<Outcome<Input>> {
  const needsApproval = options.needsApproval ?? tool.needsApproval ?? true;
  let approval: Promise<ApprovalRequiredTool<Input, Decided<Input>>> | undefined;
  const approvalTool = async (): Promise<ApprovalRequiredTool<Input, Decided<Input>>> => {
    approval ??= (async () => {
      const inputSchema = options.inputSchema ?? (await jsonSchemaOf(tool.inputSchema, OWNER));
      return requireApproval<Input, Decided<Input>>(
        // The wrapped tool only reports the decision: the SDK's tool runs after it, with the SDK's options.
        {
          name: tool.toolName,
          execute: (input, context) => ({ input, decision: context.approval!.decision }),
        },
        {
          userInteraction: options.userInteraction,
          ...definedFields({
            description: options.description,
            inputSchema,
            rejectedResult: options.rejectedResult,
          }),
        },
      );
    })();
    return await approval;
  };
  return async (input, executionOptions) => {
    const needed =
      typeof needsApproval === 'function' ? await needsApproval(input, executionOptions) : needsApproval;
    if (!needed) return { run: true, input };
    let decided: string | Decided<Input>;
    try {
      decided = await (
        await approvalTool()
      ).execute(input, {
        toolCallId: executionOptions.toolCallId,
        ...definedFields({ agent: options.agent, signal: executionOptions.abortSignal }),
      });
    } catch (error) {
      // A reject with `stop` fails the call, for `approvalStopped` in the loop's `stopWhen` to end the run.
      if (UserInteractionError.isInstance(error) && error.code !== 'RUN_STOPPED') {
        return { run: false, text: formatToolError(error) };
      }
      throw error;
    }
    if (typeof decided === 'string') return { run: false, text: decided };
    if (decided.decision.type === 'approve') return { run: true, input };
    return await editedInput(tool.inputSchema, decided.input, tool.toolName, OWNER);
  };
}
