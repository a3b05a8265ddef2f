/**
 * Durable approvals for the OpenAI Agents SDK (`@openai/agents` 0.20), in the two shapes the SDK allows:
 *
 * - {@link resolveInterruptions}, over the SDK's own human in the loop: a tool with `needsApproval` interrupts
 *   the run, each interruption becomes a durable approval keyed by the agent and the tool call id, and the
 *   decisions are applied to the `RunState` that `run(agent, state)` resumes. The state survives a restart
 *   (`state.toString()`, then `RunState.fromString(agent, saved)`): its interruptions re-attach to the same
 *   approvals, and a decision taken meanwhile comes back at once.
 * - {@link withDurableApproval}, for a function tool: the tool waits for the decision inside its `execute`, so
 *   the run never interrupts, and an edited input runs, which an interruption cannot do.
 *
 * Only the SDK's types are imported, never its code: the caller's own `tool()` builds the tool and the caller's
 * own `run()` runs it. The SDK keeps per-copy registries (of tool parsers, of approval policies), so a tool
 * built by another copy of the package than the one that runs it would quietly lose them.
 *
 * What runs at most once is as for `requireApproval`: the decision is taken exactly once and every replay of
 * the call gets it, but a process that dies after the tool ran and before its result was kept replays the
 * call and runs the tool again. A tool that must not repeat keys its side effect by the call id.
 */
import type {
  Agent,
  FunctionTool,
  RunContext,
  RunState,
  RunToolApprovalItem,
  ToolExecuteArgument,
  ToolInputParameters,
  ToolOptions,
  ToolOutputSchema,
} from '@openai/agents';
import { UserInteractionError, formatToolError } from '../interaction/user-interaction-error';
import { formatPath } from '../tool/parse-arguments';
import { approvalRequester, editedCallText, rejectionText } from '../tool/require-approval';
import type { ApprovalDecision, AskUserAgent, JsonSchemaObject, UserInteraction } from '../types';

// The SDK's own bound on the agent of a run (`RunState<TContext, TAgent extends Agent<any, any>>`): any
// narrower one refuses agents the SDK accepts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyAgent = Agent<any, any>;

type RejectDecision = Extract<ApprovalDecision, { type: 'reject' }>;
type EditDecision = Extract<ApprovalDecision, { type: 'edit' }>;

/** What the SDK passes a function tool's `execute` as its third argument (the SDK exports no name for it). */
export type AgentsToolCallDetails = NonNullable<Parameters<FunctionTool['invoke']>[2]>;

/**
 * A run whose interruptions are to be resolved: its `RunState`, or what `run()` returned (streamed or not),
 * which holds the state.
 */
export type InterruptedRun<TContext, TAgent extends AnyAgent> =
  | RunState<TContext, TAgent>
  | { readonly state: RunState<TContext, TAgent>; readonly completed?: Promise<void> };

/** Options of {@link resolveInterruptions}. */
export interface ResolveInterruptionsOptions {
  /** Where the approvals are asked: `TemporalUserInteraction` (durable), a `UserInteractionService`, ... */
  userInteraction: UserInteraction;
  /** Who asks: recorded with each approval, and part of its durable key with the tool call id. */
  agent?: AskUserAgent;
  /** What the reviewer reads about a call. Default: nothing beyond the tool's name and input. */
  description?: (interruption: RunToolApprovalItem, input: unknown) => string | undefined;
  /**
   * The input schema an edit of the call must satisfy. Default: for a function tool, the `parameters` the
   * model was given (found by name among the interrupted agent's tools; for a strict tool every property is
   * required, an optional one nullable); for other tools, none.
   */
  inputSchemaOf?: (interruption: RunToolApprovalItem) => JsonSchemaObject | undefined;
  /**
   * What the model reads when the reviewer rejects the call. Default: `The user rejected this call of <tool>`,
   * with `: <reason>` when the reviewer gave one.
   */
  rejectedMessage?: (decision: RejectDecision, toolName: string) => string;
  /**
   * What the model reads when the reviewer edited the call, which cannot run with other input (see
   * {@link resolveInterruptions}). Default: {@link editedCallText}.
   */
  editedMessage?: (decision: EditDecision, toolName: string) => string;
  /** Withdraws every approval still waiting (with `TemporalUserInteraction` its workflow ends Canceled). */
  signal?: AbortSignal;
}

/** A function call's arguments as JSON; text that is not JSON stays text, which is a JSON value too. */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The call id of an interruption, as the SDK keys its own approvals: hosted MCP requests by their request id. */
function callIdOf(interruption: RunToolApprovalItem): string | undefined {
  const raw = interruption.rawItem;
  if (raw.type === 'hosted_tool_call') {
    const providerData = raw.providerData ?? {};
    const candidates: unknown[] = [providerData.id, providerData.itemId, raw.id];
    return candidates.find((id): id is string => typeof id === 'string' && id !== '');
  }
  return raw.callId === '' ? undefined : raw.callId;
}

/** What the call would run with, as JSON: the arguments of a function call, the action of a built-in tool. */
function inputOf(interruption: RunToolApprovalItem): unknown {
  const raw = interruption.rawItem;
  switch (raw.type) {
    case 'function_call':
      return parseArguments(raw.arguments);
    case 'hosted_tool_call':
      return raw.arguments === undefined ? {} : parseArguments(raw.arguments);
    case 'computer_call':
      return raw.actions === undefined ? { action: raw.action } : { actions: raw.actions };
    case 'shell_call':
      return raw.action;
    case 'apply_patch_call':
      return raw.operation;
  }
}

/** The `parameters` of the interrupted agent's function tool of that name, the schema the model was given. */
function functionToolSchema(interruption: RunToolApprovalItem): JsonSchemaObject | undefined {
  if (interruption.rawItem.type !== 'function_call') return undefined;
  const name = interruption.rawItem.name;
  const tools: readonly { type: string; name?: string; parameters?: unknown }[] = interruption.agent.tools;
  const match = tools.find((candidate) => candidate.type === 'function' && candidate.name === name);
  const parameters = match?.parameters;
  return typeof parameters === 'object' && parameters !== null ? (parameters as JsonSchemaObject) : undefined;
}

/**
 * Turns the interruptions of a run into durable approvals and applies the decisions to its `RunState`, which it
 * returns for `run(agent, state)` to resume. Each approval is keyed by `options.agent` and the interruption's
 * tool call id, and all of them wait at once. A state with no interruptions comes back unchanged.
 *
 * Each decision reaches the SDK as `state.approve(item)` or `state.reject(item, { message })`, the message being
 * what the model reads as the tool's output:
 *
 * | decision  | applied as                  | the model reads                                                   |
 * | --------- | --------------------------- | ----------------------------------------------------------------- |
 * | `approve` | `state.approve(item)`       | the tool's result: it runs with the original input                |
 * | `reject`  | `state.reject(item, {...})` | `The user rejected this call of <tool>: <reason>`                 |
 * | `respond` | `state.reject(item, {...})` | the reviewer's text, in place of the tool's result                |
 * | `edit`    | `state.reject(item, {...})` | that the call did not run, and the edited input to call it with   |
 *
 * An edit cannot run: the SDK approves a call only with the arguments the model gave (it binds each approval to
 * the call's arguments), and offers no way to change them. Rather than run the original input the reviewer
 * replaced, or leave the run stuck on a decision it cannot apply, the call is rejected and the model reads the
 * edited input ({@link editedCallText}); a new call with it is a new interruption, approved like any other. The
 * edit is still checked when it is decided against the schema the model was given, so the model is sent an
 * input of the shape it must call with; checks the SDK leaves out of that schema (a pattern, a minimum) are the
 * tool's own parsing's, when the model calls again. A tool whose edits must run as such is wrapped with
 * {@link withDurableApproval} instead.
 *
 * The reviewer sees each call's arguments as the model wrote them: for a strict tool, an argument the model
 * left out is `null`, and an edit keeps it so.
 *
 * If an approval fails (aborted, unreachable, its call id already used for another call), that failure is
 * thrown at once and nothing is applied: the state stays as interrupted. The other approvals stay pending on
 * the server, and every decision taken is kept: calling again on the same state (or on it restored from its
 * string, in another process) re-attaches to them, and gets those already decided at once.
 *
 * @throws UserInteractionError `INVALID_OPTIONS` when `userInteraction` takes no approvals; `INVALID_ARGS`
 *   when an interruption has no call id; whatever the provider rejects with (`ASK_ABORTED`, ...).
 *
 * @example
 * let result = await run(agent, 'Deploy api 1.4.2');
 * while (result.interruptions.length > 0) {
 *   await saveRun(result.state.toString()); // what a restarted process resumes from
 *   const state = await resolveInterruptions(result, { userInteraction, agent: { id: 'deploy-bot' } });
 *   result = await run(agent, state);
 * }
 * // In a restarted process:
 * const state = await RunState.fromString(agent, await loadRun());
 * const result = await run(agent, await resolveInterruptions(state, { userInteraction, agent: { id: 'deploy-bot' } }));
 */
export async function resolveInterruptions<TContext, TAgent extends AnyAgent>(
  run: InterruptedRun<TContext, TAgent>,
  options: ResolveInterruptionsOptions,
): Promise<RunState<TContext, TAgent>> {
  const requestApproval = approvalRequester(options.userInteraction, 'resolveInterruptions');
  if ('state' in run) await run.completed;
  const state = 'state' in run ? run.state : run;
  const interruptions = state.getInterruptions();
  const calls = interruptions.map((interruption, index) => {
    const toolCallId = callIdOf(interruption);
    const toolName = interruption.name ?? interruption.rawItem.type;
    if (toolCallId === undefined) {
      throw UserInteractionError.invalidArgs([
        `interruptions[${index}]: the call of ${toolName} has no call id, and its approval is keyed by it`,
      ]);
    }
    return { interruption, toolCallId, toolName, input: inputOf(interruption) };
  });
  // All at once, and the first failure thrown at once: the other approvals stay pending on the server (a later
  // call re-attaches to them), while nothing is applied, so the state stays exactly as interrupted.
  const decisions = await Promise.all(
    calls.map(({ interruption, toolCallId, toolName, input }) => {
      const description = options.description?.(interruption, input);
      const inputSchema = (options.inputSchemaOf ?? functionToolSchema)(interruption);
      return requestApproval({
        toolName,
        toolCallId,
        input,
        ...(description === undefined ? {} : { description }),
        ...(inputSchema === undefined ? {} : { inputSchema }),
        ...(options.agent === undefined ? {} : { agent: options.agent }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    }),
  );
  for (const [index, { interruption, toolName }] of calls.entries()) {
    const decision = decisions[index]!;
    switch (decision.type) {
      case 'approve':
        state.approve(interruption);
        break;
      case 'reject':
        state.reject(interruption, {
          message: (options.rejectedMessage ?? rejectionText)(decision, toolName),
        });
        break;
      case 'respond':
        state.reject(interruption, { message: decision.text });
        break;
      case 'edit':
        state.reject(interruption, {
          message: (options.editedMessage ?? editedCallText)(decision, toolName),
        });
        break;
    }
  }
  return state;
}

/** Options of {@link withDurableApproval}. */
export interface DurableApprovalOptions<TParameters extends ToolInputParameters> {
  /** Where the approvals are asked: `TemporalUserInteraction` (durable), a `UserInteractionService`, ... */
  userInteraction: UserInteraction;
  /** Who asks: recorded with each approval, and part of its durable key with the SDK's tool call id. */
  agent?: AskUserAgent;
  /** What the reviewer reads about the call. */
  description?: string | ((input: ToolExecuteArgument<TParameters>) => string);
  /**
   * The JSON Schema an edited input must satisfy, checked when it is decided. Default: the `parameters` when
   * they are a JSON Schema; the input JSON Schema of a Zod or other Standard Schema.
   */
  inputSchema?: JsonSchemaObject;
  /**
   * What the model reads when the call is rejected. Default: `The user rejected this call of <tool>`, with
   * `: <reason>` when the reviewer gave one.
   */
  rejectedResult?: (decision: RejectDecision, toolName: string) => string;
}

/** A Standard Schema's validator (https://standardschema.dev): the part of it an edit goes through. */
interface StandardValidator {
  '~standard': {
    validate(value: unknown): StandardResult | Promise<StandardResult>;
    jsonSchema?: { input(options: { target: string }): Record<string, unknown> };
  };
}
type StandardResult =
  | { value: unknown; issues?: undefined }
  | { issues: readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] }[] };

function isStandardSchema(value: unknown): value is StandardValidator {
  if (typeof value !== 'object' || value === null) return false;
  const props = (value as { '~standard'?: { validate?: unknown } })['~standard'];
  return typeof props?.validate === 'function';
}

/** The default schema of edits: the JSON Schema parameters as they are, a Standard Schema's input JSON Schema. */
function defaultInputSchema(parameters: unknown): JsonSchemaObject | undefined {
  if (isStandardSchema(parameters)) {
    try {
      return parameters['~standard'].jsonSchema?.input({ target: 'draft-2020-12' });
    } catch {
      // A schema with no JSON form (a transform, a custom check): edits are checked by the schema as they run.
      return undefined;
    }
  }
  return typeof parameters === 'object' && parameters !== null ? (parameters as JsonSchemaObject) : undefined;
}

/**
 * An edited input as `execute` takes it: through the tool's schema when it is a Zod or other Standard Schema
 * (as the SDK parses the model's arguments), as it is for JSON Schema parameters (which the SDK does not check
 * either; the edit was checked against them when it was decided). A problem is the text the model reads.
 */
async function editedInput(
  parameters: unknown,
  input: unknown,
  toolName: string,
): Promise<{ ok: true; input: unknown } | { ok: false; text: string }> {
  if (!isStandardSchema(parameters)) return { ok: true, input };
  const result = await parameters['~standard'].validate(input);
  if (result.issues === undefined) return { ok: true, input: result.value };
  const problems = result.issues.map((issue) => {
    const keys = (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment));
    return `${formatPath(['input', ...keys])}: ${issue.message}`;
  });
  return {
    ok: false,
    text: `Error: the edited input of ${toolName} is invalid (${problems.join('; ')}), so the call did not run`,
  };
}

/**
 * The options of an Agents SDK function tool, changed so that its `execute` first waits for a durable decision
 * on the call; pass them to the SDK's `tool()`. The run never interrupts: the approval is keyed by
 * `options.agent` and the SDK's tool call id (`details.toolCall.callId`), and the run's abort signal
 * (`details.signal`) withdraws it.
 *
 * - `approve`: `execute` runs with the input as the SDK parsed it;
 * - `edit`: `execute` runs with the edited input, parsed by the tool's Zod or Standard Schema as the model's
 *   arguments are; the edit is checked against the tool's input JSON Schema when it is decided;
 * - `reject`: the tool does not run, the model reads `The user rejected this call of <tool>: <reason>`;
 * - `respond`: the tool does not run, the model reads the reviewer's text as its result.
 *
 * The reviewer sees the input as the SDK parsed it (for a strict tool, without the `null`s the model writes for
 * arguments it leaves out), so a schema whose parsing makes other than JSON cannot be approved this way.
 *
 * Which calls wait is the tool's own `needsApproval` (a boolean or the SDK's policy function; every call when it
 * has none), taken out of the options so that the SDK never interrupts the run for them as well. A failure to
 * get a decision (the service unreachable, the call id already used for another call) is what the model reads
 * as the result, `Error: ...`; the tool does not run. (An expired or declined approval is a rejection.)
 *
 * @throws UserInteractionError `INVALID_OPTIONS`: `userInteraction` takes no approvals; the tool has a
 *   `timeoutMs` (the SDK would count the wait for a person against it, then abort, withdrawing the approval;
 *   an operator's deadline is the provider's `policy.expireAfter`); the tool has an `outputSchema` (a
 *   rejection or a response is text, not an output of that schema); the tool has no name.
 *
 * @example
 * import { Agent, run, tool } from '@openai/agents';
 * import { z } from 'zod';
 *
 * const deploy = tool(
 *   withDurableApproval(
 *     {
 *       name: 'deploy',
 *       description: 'Deploy a service at a version',
 *       parameters: z.object({ service: z.string(), version: z.string() }),
 *       execute: async ({ service, version }) => `deployed ${service} ${version}`,
 *     },
 *     { userInteraction: new TemporalUserInteraction(), agent: { id: 'deploy-bot' } },
 *   ),
 * );
 * const result = await run(new Agent({ name: 'ops', tools: [deploy] }), 'Deploy api 1.4.2');
 */
export function withDurableApproval<
  TParameters extends ToolInputParameters = undefined,
  Context = unknown,
  TOutputSchema extends ToolOutputSchema | undefined = undefined,
>(
  toolOptions: ToolOptions<TParameters, Context, TOutputSchema>,
  options: DurableApprovalOptions<TParameters>,
): ToolOptions<TParameters, Context, TOutputSchema> {
  const requestApproval = approvalRequester(options.userInteraction, 'withDurableApproval');
  if (toolOptions.timeoutMs !== undefined) {
    throw UserInteractionError.invalidOptions(
      'withDurableApproval',
      'timeoutMs',
      'the SDK counts the wait for a decision against it, then aborts the call and withdraws the approval; set a deadline with the provider policy expireAfter',
    );
  }
  if (toolOptions.outputSchema !== undefined) {
    throw UserInteractionError.invalidOptions(
      'withDurableApproval',
      'outputSchema',
      'a rejected or answered call returns text, which is no output of that schema',
    );
  }
  const { needsApproval, execute, parameters } = toolOptions;
  // Named here, as `tool()` would name it, because the wrapped `execute` has a name of its own.
  const toolName = toolOptions.name ?? execute.name;
  if (toolName === '') {
    throw UserInteractionError.invalidOptions(
      'withDurableApproval',
      'name',
      'the tool has none: give it one, or name its execute function',
    );
  }
  const inputSchema = options.inputSchema ?? defaultInputSchema(parameters);
  const rejected = options.rejectedResult ?? rejectionText;
  type Input = ToolExecuteArgument<TParameters>;
  // The SDK types `execute` per schema kind (a union); each takes the input its schema parses to.
  const run = execute as (
    input: Input,
    context?: RunContext<Context>,
    details?: AgentsToolCallDetails,
  ) => unknown;

  const approvedExecute = async (
    input: Input,
    runContext?: RunContext<Context>,
    details?: AgentsToolCallDetails,
  ): Promise<unknown> => {
    const callId = details?.toolCall?.callId;
    const needed =
      typeof needsApproval === 'function'
        ? // The SDK's policy takes the run context, which the runner always passes.
          await needsApproval(runContext as RunContext, input as never, callId)
        : (needsApproval ?? true);
    if (!needed) return await run(input, runContext, details);
    if (callId === undefined || callId === '') {
      throw UserInteractionError.invalidArgs([
        `toolCallId: ${toolName} needs approval, which is keyed by the tool call id; the SDK passed none`,
      ]);
    }
    const description =
      typeof options.description === 'function' ? options.description(input) : options.description;
    const signal = details?.signal;
    let decision: ApprovalDecision;
    try {
      decision = await requestApproval({
        toolName,
        toolCallId: callId,
        input,
        ...(description === undefined ? {} : { description }),
        ...(inputSchema === undefined ? {} : { inputSchema }),
        ...(options.agent === undefined ? {} : { agent: options.agent }),
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      // The run's own abort is the SDK's to handle: rethrown as its reason, the SDK ends the call as cancelled.
      if (signal?.aborted === true) throw signal.reason;
      if (UserInteractionError.isInstance(error)) return formatToolError(error);
      throw error;
    }
    switch (decision.type) {
      case 'approve':
        return await run(input, runContext, details);
      case 'edit': {
        const edited = await editedInput(parameters, decision.input, toolName);
        return edited.ok ? await run(edited.input as Input, runContext, details) : edited.text;
      }
      case 'reject':
        return rejected(decision, toolName);
      case 'respond':
        return decision.text;
    }
  };

  return {
    ...toolOptions,
    name: toolName,
    needsApproval: false,
    execute: approvedExecute,
  } as ToolOptions<TParameters, Context, TOutputSchema>;
}
