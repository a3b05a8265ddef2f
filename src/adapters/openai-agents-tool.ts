/**
 * `withDurableApproval`: an OpenAI Agents SDK function tool (`@openai/agents` 0.20) that waits for a durable
 * decision inside its `execute`, so the run never interrupts, and an edited input runs, which an interruption
 * cannot do.
 *
 * Only the SDK's types are imported, never its code: the caller's own `tool()` builds the tool and the caller's
 * own `run()` runs it. The SDK keeps per-copy registries (of tool parsers, of approval policies), so a tool built
 * by another copy of the package than the one that runs it would quietly lose them.
 *
 * What runs at most once is as for `requireApproval`: the decision is taken exactly once and every replay of the
 * call gets it, but a process that dies after the tool ran and before its result was kept replays the call and
 * runs the tool again. A tool that must not repeat keys its side effect by the call id.
 */
import type {
  FunctionTool,
  RunContext,
  ToolExecuteArgument,
  ToolInputParameters,
  ToolOptions,
  ToolOutputSchema,
} from '@openai/agents';
import { issueTexts, type ValidationIssue } from '../common';
import { UserInteractionError, formatToolError } from '../interaction/user-interaction-error';
import { approvalRequestOf, approvalRequester, rejectionText, runStopped } from '../tool/require-approval';
import type { ApprovalDecision, AskUserAgent, JsonSchemaObject, UserInteraction } from '../types';

/** What the SDK passes a function tool's `execute` as its third argument (the SDK exports no name for it). */
export type AgentsToolCallDetails = NonNullable<Parameters<FunctionTool['invoke']>[2]>;

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
  rejectedResult?: (decision: Extract<ApprovalDecision, { type: 'reject' }>, toolName: string) => string;
}

/** A Standard Schema's validator (https://standardschema.dev): the part of it an edit goes through. */
interface StandardValidator {
  '~standard': {
    validate(value: unknown): StandardResult | Promise<StandardResult>;
    jsonSchema?: { input(options: { target: string }): Record<string, unknown> };
  };
}
type StandardResult = { value: unknown; issues?: undefined } | { issues: readonly ValidationIssue[] };

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
  const problems = issueTexts(result.issues, Number.POSITIVE_INFINITY, ['input']);
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
  const requestApproval = approvalRequester(options.userInteraction, OWNER);
  const toolName = checkedToolName(toolOptions);
  const { needsApproval, execute, parameters } = toolOptions;
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
    const signal = details?.signal;
    let decision: ApprovalDecision;
    try {
      decision = await requestApproval(
        approvalRequestOf({
          toolName,
          toolCallId: callId,
          input,
          description:
            typeof options.description === 'function' ? options.description(input) : options.description,
          inputSchema,
          agent: options.agent,
          signal,
        }),
      );
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
      case 'reject': {
        const rejection = rejected(decision, toolName);
        // A reject with `stop` ends the run: thrown past the tool's error function (see `stoppingErrors`).
        const stopped = runStopped(decision, () => rejection);
        if (stopped !== undefined) throw stopped;
        return rejection;
      }
      case 'respond':
        return decision.text;
    }
  };

  return {
    ...toolOptions,
    name: toolName,
    needsApproval: false,
    execute: approvedExecute,
    errorFunction: stoppingErrors(toolOptions.errorFunction as ErrorFunction | null | undefined),
  } as ToolOptions<TParameters, Context, TOutputSchema>;
}

/** The SDK's own text for a failed tool, when the tool sets no `errorFunction` of its own. */
const SDK_TOOL_ERROR = 'An error occurred while running the tool. Please try again.';

/**
 * The tool's error function, except that `RUN_STOPPED` is thrown on: the SDK turns a tool's failure into text
 * for the model, and a failure its error function throws into the end of the run (`ToolCallError`, the
 * `RUN_STOPPED` error as its `error`). `null` (every failure ends the run) stays `null`.
 */
type ErrorFunction = (context: unknown, error: unknown, details?: unknown) => unknown;

function stoppingErrors(errorFunction: ErrorFunction | null | undefined): ErrorFunction | null {
  if (errorFunction === null) return null;
  return (context, error, details) => {
    if (UserInteractionError.isInstance(error) && error.code === 'RUN_STOPPED') throw error;
    return errorFunction === undefined ? SDK_TOOL_ERROR : errorFunction(context, error, details);
  };
}

const OWNER = 'withDurableApproval';

/**
 * The tool's name, as `tool()` would name it (the wrapped `execute` has a name of its own), once the tool is
 * checked fit for waiting on a decision.
 */
function checkedToolName(toolOptions: {
  name?: string | undefined;
  execute: { name: string };
  timeoutMs?: number | undefined;
  outputSchema?: unknown;
}): string {
  if (toolOptions.timeoutMs !== undefined) {
    throw UserInteractionError.invalidOptions(
      OWNER,
      'timeoutMs',
      'the SDK counts the wait for a decision against it, then aborts the call and withdraws the approval; set a deadline with the provider policy expireAfter',
    );
  }
  if (toolOptions.outputSchema !== undefined) {
    throw UserInteractionError.invalidOptions(
      OWNER,
      'outputSchema',
      'a rejected or answered call returns text, which is no output of that schema',
    );
  }
  const toolName = toolOptions.name ?? toolOptions.execute.name;
  if (toolName === '') {
    throw UserInteractionError.invalidOptions(
      OWNER,
      'name',
      'the tool has none: give it one, or name its execute function',
    );
  }
  return toolName;
}
