/**
 * Durable approvals for the Vercel AI SDK (`ai` 6 or 7, an optional peer dependency), in the three shapes the
 * SDK allows:
 *
 * - {@link durableApprovalAiTool} (`ai` 6 and 7): the tool waits for the decision inside its `execute`, so
 *   the step never stops, and every decision runs as decided: the original input, the edited one, or the
 *   rejection or response text as the tool's result.
 * - {@link resolveAiToolApprovals} (the SDK's own stop-and-resume flow, `ai` 6 and 7): a tool with
 *   `needsApproval` stops the step with `tool-approval-request` parts; each becomes a durable approval, and
 *   the decisions come back as the `tool-approval-response` message that the next `generateText` call resumes
 *   from.
 * - {@link aiToolApprovalPolicy} (`ai` 7's `toolApproval` option): the SDK asks the policy about each call,
 *   and the policy's answer is the durable decision.
 *
 * Every approval is keyed by the agent and the SDK's tool call id, so a process that restarts and replays the
 * call (or the saved messages) re-attaches to it, and gets a decision taken meanwhile at once.
 *
 * What runs at most once is as for `requireApproval`: the decision is taken exactly once and every replay of
 * the call gets it, but a process that dies after the tool ran and before its result was kept replays the
 * call and runs the tool again. A tool that must not repeat keys its side effect by
 * `approvalKey(agent, toolCallId)`.
 *
 * `ai` is loaded only where a tool's input schema is read (for its JSON Schema, and to parse an edited
 * input), not when this module is, so the `durable-ask-user/ai` entry loads without it. Only the SDK's types
 * are imported otherwise: the caller's own `tool()` builds the tool and the caller's own `generateText` runs
 * it.
 */
import type * as AiSdk from 'ai';
import { UserInteractionError, failureReason, formatToolError } from '../interaction/user-interaction-error';
import {
  approvalRequester,
  editedCallText,
  rejectionText,
  requireApproval,
  type ApprovalRequiredTool,
} from '../tool/require-approval';
import type { ApprovalDecision, AskUserAgent, JsonSchemaObject, UserInteraction } from '../types';
import { loadAiSdk } from './load-ai-sdk';
// The same text for an edit that cannot run as the OpenAI Agents adapter's (a plain function: that module loads
// no code of the Agents SDK).

type RejectDecision = Extract<ApprovalDecision, { type: 'reject' }>;
type EditDecision = Extract<ApprovalDecision, { type: 'edit' }>;
type RunDecision = Extract<ApprovalDecision, { type: 'approve' | 'edit' }>;

/**
 * The JSON Schema of an AI SDK input schema (Zod, another Standard Schema, `jsonSchema()`), which an edit
 * must satisfy when it is decided; none for a tool without a schema, or one with no JSON form (a transform).
 */
async function jsonSchemaOf(inputSchema: unknown, owner: string): Promise<JsonSchemaObject | undefined> {
  if (inputSchema === undefined || inputSchema === null) return undefined;
  const { asSchema } = loadAiSdk(owner);
  try {
    const converted: unknown = await asSchema(inputSchema as AiSdk.FlexibleSchema<unknown>).jsonSchema;
    return typeof converted === 'object' && converted !== null ? (converted as JsonSchemaObject) : undefined;
  } catch {
    // No JSON form: the edit is still parsed by the schema itself before the tool runs with it.
    return undefined;
  }
}

/** A tool call as the SDK hands it to an approval: its id, the tool's name and the parsed input. */
export interface AiToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** The provider runs the tool (a provider-defined tool), not this process. */
  providerExecuted?: boolean;
}

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
  rejectedResult?: (decision: RejectDecision, toolName: string) => string;
}

/** A call's way forward once decided: run with this input, or return this text without running. */
type Outcome<Input> = { run: true; input: Input } | { run: false; text: string };

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
  const owner = 'durableApprovalAiTool';
  approvalRequester(options.userInteraction, owner);
  const { toolName } = options;
  if (typeof toolName !== 'string' || toolName.trim() === '') {
    throw UserInteractionError.invalidOptions(
      owner,
      'toolName',
      'give the name the tool is registered under in tools',
    );
  }
  const original = aiTool as {
    execute?: (
      input: Input,
      options: AiSdk.ToolExecutionOptions,
    ) => AsyncIterable<Output> | PromiseLike<Output> | Output;
    outputSchema?: unknown;
    inputSchema?: unknown;
    needsApproval?: AiSdk.Tool<Input, unknown>['needsApproval'];
    toModelOutput?: (call: { toolCallId: string; input: Input; output: Output }) => unknown;
  };
  const { execute } = original;
  if (typeof execute !== 'function') {
    throw UserInteractionError.invalidOptions(
      owner,
      'execute',
      `${toolName} has none: a tool the caller runs is decided on where the caller runs it`,
    );
  }
  if (original.outputSchema !== undefined) {
    throw UserInteractionError.invalidOptions(
      owner,
      'outputSchema',
      'a rejected or answered call returns text, which is no output of that schema',
    );
  }
  const needsApproval = options.needsApproval ?? original.needsApproval ?? true;

  // Built on the first call that needs a decision: the default schema of edits comes from converting the
  // tool's input schema, which may be asynchronous (and loads `ai`).
  let approval: Promise<ApprovalRequiredTool<Input, { input: Input; decision: RunDecision }>> | undefined;
  const approvalTool = async (): Promise<
    ApprovalRequiredTool<Input, { input: Input; decision: RunDecision }>
  > => {
    approval ??= (async () => {
      const inputSchema = options.inputSchema ?? (await jsonSchemaOf(original.inputSchema, owner));
      return requireApproval<Input, { input: Input; decision: RunDecision }>(
        // The wrapped tool only reports the decision: the SDK's tool runs after it, with the SDK's options.
        { name: toolName, execute: (input, context) => ({ input, decision: context.approval!.decision }) },
        {
          userInteraction: options.userInteraction,
          ...(options.description === undefined ? {} : { description: options.description }),
          ...(inputSchema === undefined ? {} : { inputSchema }),
          ...(options.rejectedResult === undefined ? {} : { rejectedResult: options.rejectedResult }),
        },
      );
    })();
    return await approval;
  };

  const decide = async (
    input: Input,
    executionOptions: AiSdk.ToolExecutionOptions,
  ): Promise<Outcome<Input>> => {
    const needed =
      typeof needsApproval === 'function' ? await needsApproval(input, executionOptions) : needsApproval;
    if (!needed) return { run: true, input };
    let decided: string | { input: Input; decision: RunDecision };
    try {
      decided = await (
        await approvalTool()
      ).execute(input, {
        toolCallId: executionOptions.toolCallId,
        ...(options.agent === undefined ? {} : { agent: options.agent }),
        ...(executionOptions.abortSignal === undefined ? {} : { signal: executionOptions.abortSignal }),
      });
    } catch (error) {
      if (UserInteractionError.isInstance(error)) return { run: false, text: formatToolError(error) };
      throw error;
    }
    if (typeof decided === 'string') return { run: false, text: decided };
    if (decided.decision.type === 'approve') return { run: true, input };
    return await editedInput(original.inputSchema, decided.input, toolName, owner);
  };

  // A rejection or a response is text, which the tool's own `toModelOutput` was not written for.
  const notRun = new Map<string, string>();
  const skip = (toolCallId: string, text: string): string => {
    if (original.toModelOutput !== undefined) notRun.set(toolCallId, text);
    return text;
  };
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

/**
 * An edited input as `execute` takes it: parsed by the tool's schema as the SDK parses the model's input (Zod
 * defaults and transforms apply); as it is for a schema without a validator (`jsonSchema()` without one),
 * which the SDK does not check either. A problem is the text the model reads.
 */
async function editedInput<Input>(
  inputSchema: unknown,
  input: unknown,
  toolName: string,
  owner: string,
): Promise<Outcome<Input>> {
  if (inputSchema === undefined || inputSchema === null) return { run: true, input: input as Input };
  const schema = loadAiSdk(owner).asSchema(inputSchema as AiSdk.FlexibleSchema<Input>);
  if (schema.validate === undefined) return { run: true, input: input as Input };
  const result = await schema.validate(input);
  if (result.success) return { run: true, input: result.value };
  return {
    run: false,
    text:
      `Error: the edited input of ${toolName} does not fit its input schema, so the call did not run: ` +
      failureReason(result.error),
  };
}

/** Options of {@link resolveAiToolApprovals}. */
export interface ResolveAiToolApprovalsOptions {
  /** Where the approvals are asked: `TemporalUserInteraction` (durable), a `UserInteractionService`, ... */
  userInteraction: UserInteraction;
  /** Who asks: recorded with each approval, and part of its durable key with the tool call id. */
  agent?: AskUserAgent;
  /**
   * The tools the calls were made with (the `tools` of `generateText`): an edit of a call is checked against
   * the JSON Schema of its tool's `inputSchema` when it is decided. Without them, edits are not checked.
   */
  tools?: AiSdk.ToolSet;
  /** What the reviewer reads about a call. Default: nothing beyond the tool's name and input. */
  description?: (toolCall: AiToolCall) => string | undefined;
  /**
   * The reason of the denial when the reviewer rejects the call, which the model reads. Default:
   * `The user rejected this call of <tool>`, with `: <reason>` when the reviewer gave one.
   */
  rejectedReason?: (decision: RejectDecision, toolName: string) => string;
  /**
   * The reason of the denial when the reviewer edited the call, which cannot run with other input (see {@link
   * resolveAiToolApprovals}). Default: that the call did not run, and the edited input to call it with.
   */
  editedReason?: (decision: EditDecision, toolName: string) => string;
  /** Withdraws every approval still waiting (with `TemporalUserInteraction` its workflow ends Canceled). */
  signal?: AbortSignal;
}

/** An approval request of the messages that no response or result answers yet, with its tool call. */
interface PendingApproval {
  approvalId: string;
  toolCall: AiToolCall;
}

/** The approval requests of `messages` still waiting, in order. */
function pendingApprovals(messages: readonly AiSdk.ModelMessage[]): PendingApproval[] {
  const toolCalls = new Map<string, AiToolCall>();
  const requests: { approvalId: string; toolCallId: string; index: number }[] = [];
  const answered = new Set<string>();
  const withResult = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      switch (part.type) {
        case 'tool-call':
          toolCalls.set(part.toolCallId, {
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
            ...(part.providerExecuted === true ? { providerExecuted: true } : {}),
          });
          break;
        case 'tool-approval-request':
          requests.push({ approvalId: part.approvalId, toolCallId: part.toolCallId, index });
          break;
        case 'tool-approval-response':
          answered.add(part.approvalId);
          break;
        case 'tool-result':
          withResult.add(part.toolCallId);
          break;
      }
    }
  }
  return requests
    .filter((request) => !answered.has(request.approvalId) && !withResult.has(request.toolCallId))
    .map((request) => {
      const toolCall = toolCalls.get(request.toolCallId);
      if (toolCall === undefined) {
        throw UserInteractionError.invalidArgs([
          `messages[${request.index}]: the approval request ${request.approvalId} is for tool call ` +
            `${request.toolCallId}, which no message holds`,
        ]);
      }
      return { approvalId: request.approvalId, toolCall };
    });
}

/**
 * Turns the `tool-approval-request` parts of `messages` that no response answers yet into durable approvals,
 * keyed by `options.agent` and each call's tool call id, all waiting at once. Resolves to the tool message
 * that answers them, to append to the messages that the next `generateText` (or `streamText`) call resumes
 * from; to no message when nothing waits. `messages` are the conversation as the SDK left it
 * (`[...messages, ...result.response.messages]`), or as it was saved: a restarted process that calls this on
 * the saved messages re-attaches to the same approvals, and gets a decision taken meanwhile at once.
 *
 * | decision  | answered with                                   | the model reads                      |
 * | --------- | ----------------------------------------------- | ------------------------------------ |
 * | `approve` | `approved: true`                                | the tool's result: the SDK runs it   |
 * | `reject`  | `approved: false`, the rejection text as reason | the rejection text, as a denial      |
 * | `respond` | `approved: false`, and a `tool-result` of text  | the reviewer's text, as the result   |
 * | `edit`    | `approved: false`, the edited input as reason   | the edited input, to call again with |
 *
 * A denial reaches the model as the SDK's `execution-denied` result with that reason (which providers send as
 * the tool's output). An edit cannot run: the SDK's approval response carries no input, the SDK runs an
 * approved call only with the input the model gave (with `experimental_toolApprovalSecret` it verifies that
 * the input is the one signed), and rewriting the call in the history would show the model a call it never
 * made. Rather than run the input the reviewer replaced, the call is denied and the model reads the edited
 * input; a new call with it is a new approval. The edit is still checked against the tool's schema when it is
 * decided (with `options.tools`), so the model is never sent an input the tool refuses. A tool whose edits
 * must run as such is wrapped with {@link durableApprovalAiTool} instead. A provider-executed call answered
 * with `respond` is denied with the text as the reason: the provider, not this process, would give its
 * result.
 *
 * If any approval fails (aborted, unreachable, expired without a policy), no message is returned and the
 * first failure is thrown; the decisions already taken are kept durably, and calling again gets them at once.
 *
 * @throws UserInteractionError `INVALID_OPTIONS` when `userInteraction` takes no approvals; `INVALID_ARGS`
 *   when an approval request names a tool call that no message holds; whatever the provider rejects with.
 *
 * @example
 * const messages: ModelMessage[] = [{ role: 'user', content: 'Deploy api 1.4.2' }];
 * for (;;) {
 *   const result = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
 *   messages.push(...result.response.messages);
 *   await saveConversation(messages); // what a restarted process resumes from
 *   const answers = await resolveAiToolApprovals(messages, { userInteraction, agent, tools });
 *   if (answers.length === 0) break;
 *   messages.push(...answers);
 * }
 */
export async function resolveAiToolApprovals(
  messages: readonly AiSdk.ModelMessage[],
  options: ResolveAiToolApprovalsOptions,
): Promise<AiSdk.ToolModelMessage[]> {
  const owner = 'resolveAiToolApprovals';
  const requestApproval = approvalRequester(options.userInteraction, owner);
  const pending = pendingApprovals(messages);
  if (pending.length === 0) return [];
  const tools = (options.tools ?? {}) as Readonly<Record<string, { inputSchema?: unknown } | undefined>>;
  const settled = await Promise.allSettled(
    pending.map(async ({ toolCall }) => {
      const description = options.description?.(toolCall);
      const inputSchema = await jsonSchemaOf(tools[toolCall.toolName]?.inputSchema, owner);
      return await requestApproval({
        toolName: toolCall.toolName,
        toolCallId: toolCall.toolCallId,
        input: toolCall.input,
        ...(description === undefined ? {} : { description }),
        ...(inputSchema === undefined ? {} : { inputSchema }),
        ...(options.agent === undefined ? {} : { agent: options.agent }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    }),
  );
  const failure = settled.find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) throw failure.reason;

  const content: AiSdk.ToolContent = [];
  for (const [index, { approvalId, toolCall }] of pending.entries()) {
    const decision = (settled[index] as PromiseFulfilledResult<ApprovalDecision>).value;
    const { toolName, toolCallId } = toolCall;
    const answer = (approved: boolean, reason?: string): void => {
      content.push({
        type: 'tool-approval-response',
        approvalId,
        approved,
        ...(reason === undefined ? {} : { reason }),
        // The SDK forwards the responses of provider-executed calls to the provider, and only those.
        ...(toolCall.providerExecuted === true ? { providerExecuted: true } : {}),
      });
    };
    switch (decision.type) {
      case 'approve':
        answer(true);
        break;
      case 'reject':
        answer(false, (options.rejectedReason ?? rejectionText)(decision, toolName));
        break;
      case 'edit':
        answer(false, (options.editedReason ?? editedCallText)(decision, toolName));
        break;
      case 'respond':
        answer(false, decision.text);
        // A call that has a result is not denied again: the SDK skips the approvals of calls answered so.
        if (toolCall.providerExecuted !== true) {
          content.push({
            type: 'tool-result',
            toolCallId,
            toolName,
            output: { type: 'text', value: decision.text },
          });
        }
        break;
    }
  }
  return [{ role: 'tool', content }];
}

/** What an {@link AiToolApprovalPolicy} answers: `ai` 7's `ToolApprovalStatus`, in the forms it uses. */
export type AiToolApprovalStatus =
  { type: 'not-applicable' } | { type: 'approved' } | { type: 'denied'; reason: string };

/**
 * `ai` 7's `GenericToolApprovalFunction`, as far as the policy reads it: the tool call, and the tools (for
 * the tool's input schema). Written out rather than imported, since this package builds against `ai` 6, which
 * has no such type; the SDK passes more (`toolsContext`, `runtimeContext`, `messages`), which the policy
 * ignores.
 */
export type AiToolApprovalPolicy = (options: {
  toolCall: AiToolCall;
  tools?: object | undefined;
}) => Promise<AiToolApprovalStatus>;

/** Options of {@link aiToolApprovalPolicy}. */
export interface AiToolApprovalPolicyOptions {
  /** Where the approvals are asked: `TemporalUserInteraction` (durable), a `UserInteractionService`, ... */
  userInteraction: UserInteraction;
  /** Who asks: recorded with each approval, and part of its durable key with the tool call id. */
  agent?: AskUserAgent;
  /**
   * Which calls wait for a decision. Default: every call. The SDK gives a `toolApproval` function precedence
   * over the tools' own `needsApproval`, so those are not consulted: pick the calls here instead.
   */
  needsApproval?: boolean | ((toolCall: AiToolCall) => boolean | PromiseLike<boolean>);
  /** What the reviewer reads about a call. Default: nothing beyond the tool's name and input. */
  description?: (toolCall: AiToolCall) => string | undefined;
  /**
   * The reason of the denial when the reviewer rejects the call, which the model reads. Default:
   * `The user rejected this call of <tool>`, with `: <reason>` when the reviewer gave one.
   */
  rejectedReason?: (decision: RejectDecision, toolName: string) => string;
  /**
   * The reason of the denial when the reviewer edited the call, which cannot run with other input (see {@link
   * aiToolApprovalPolicy}). Default: that the call did not run, and the edited input to call it with.
   */
  editedReason?: (decision: EditDecision, toolName: string) => string;
  /**
   * Withdraws the approval still waiting (with `TemporalUserInteraction` its workflow ends Canceled), and the
   * policy then throws, which ends the run. Pass the `abortSignal` of `generateText`: the SDK gives a policy
   * none of its own.
   */
  signal?: AbortSignal;
}

/**
 * A policy for `ai` 7's `toolApproval` option of `generateText`, `streamText` and `ToolLoopAgent`: each call
 * it picks waits for a durable decision, keyed by `options.agent` and the SDK's tool call id, and the SDK
 * acts on the answer within the same run. The policy can only approve or deny (with a reason the model
 * reads):
 *
 * | decision  | the policy answers                    | the model reads                                   |
 * | --------- | ------------------------------------- | ------------------------------------------------- |
 * | `approve` | `approved`                            | the tool's result: the SDK runs it, as it was     |
 * | `reject`  | `denied`, reason: the rejection text  | `The user rejected this call of <tool>: <reason>` |
 * | `respond` | `denied`, reason: the reviewer's text | the reviewer's text                               |
 * | `edit`    | `denied`, reason: the edited input    | that the call did not run, and the edited input   |
 *
 * A denial reaches the model as the SDK's `execution-denied` result with that reason (which providers send as
 * the tool's output): a response is read as the text, but marked denied rather than as a result. An edit
 * cannot run: the status has no input, and the SDK runs an approved call with the input the model gave.
 * Rather than run the input the reviewer replaced, the call is denied and the model reads the edited input; a
 * new call with it is a new approval. The edit is still checked against the JSON Schema of the tool's
 * `inputSchema` when it is decided. A tool whose edits must run, or whose responses must be its result, is
 * wrapped with {@link durableApprovalAiTool} instead (and left out of the policy with `needsApproval`).
 *
 * The SDK asks the policy about the calls of a step one after another, so the second call of a step is put to
 * a reviewer only once the first is decided. A failure to get a decision (unreachable, expired without a
 * policy) denies the call, and the model reads `Error: <message>`; an abort through `options.signal` throws.
 *
 * @throws UserInteractionError `INVALID_OPTIONS` when `userInteraction` takes no approvals.
 *
 * @example
 * const controller = new AbortController();
 * const result = await generateText({
 *   model,
 *   tools: { deploy },
 *   toolApproval: aiToolApprovalPolicy({
 *     userInteraction: new TemporalUserInteraction(),
 *     agent: { id: 'deploy-bot' },
 *     needsApproval: ({ toolName }) => toolName === 'deploy',
 *     signal: controller.signal,
 *   }),
 *   abortSignal: controller.signal,
 *   stopWhen: stepCountIs(5),
 *   prompt: 'Deploy api 1.4.2',
 * });
 */
export function aiToolApprovalPolicy(options: AiToolApprovalPolicyOptions): AiToolApprovalPolicy {
  const owner = 'aiToolApprovalPolicy';
  const requestApproval = approvalRequester(options.userInteraction, owner);
  const needsApproval = options.needsApproval ?? true;
  return async ({ toolCall, tools }) => {
    const needed = typeof needsApproval === 'function' ? await needsApproval(toolCall) : needsApproval;
    if (!needed) return { type: 'not-applicable' };
    const { toolName, toolCallId, input } = toolCall;
    const tool = (tools as Readonly<Record<string, { inputSchema?: unknown } | undefined>> | undefined)?.[
      toolName
    ];
    const inputSchema = await jsonSchemaOf(tool?.inputSchema, owner);
    const description = options.description?.(toolCall);
    let decision: ApprovalDecision;
    try {
      decision = await requestApproval({
        toolName,
        toolCallId,
        input,
        ...(description === undefined ? {} : { description }),
        ...(inputSchema === undefined ? {} : { inputSchema }),
        ...(options.agent === undefined ? {} : { agent: options.agent }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      // Aborted, the run ends; otherwise never a silent approval: the model reads why the call did not run.
      if (options.signal?.aborted === true || !UserInteractionError.isInstance(error)) throw error;
      return { type: 'denied', reason: formatToolError(error) };
    }
    switch (decision.type) {
      case 'approve':
        return { type: 'approved' };
      case 'reject':
        return { type: 'denied', reason: (options.rejectedReason ?? rejectionText)(decision, toolName) };
      case 'respond':
        return { type: 'denied', reason: decision.text };
      case 'edit':
        return { type: 'denied', reason: (options.editedReason ?? editedCallText)(decision, toolName) };
    }
  };
}
