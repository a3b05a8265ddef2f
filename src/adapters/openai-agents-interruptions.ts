/**
 * `resolveInterruptions`: durable approvals over the OpenAI Agents SDK's own human in the loop (`@openai/agents`
 * 0.20). A tool with `needsApproval` interrupts the run, each interruption becomes a durable approval keyed by the
 * agent and the tool call id, and the decisions are applied to the `RunState` that `run(agent, state)` resumes.
 * The state survives a restart (`state.toString()`, then `RunState.fromString(agent, saved)`): its interruptions
 * re-attach to the same approvals, and a decision taken meanwhile comes back at once.
 *
 * Only the SDK's types are imported, never its code: the caller's own `run()` runs the agent. What runs at most
 * once is as for `requireApproval`: the decision is taken exactly once and every replay of the call gets it, but
 * a process that dies after the tool ran and before its result was kept replays the call and runs the tool again.
 */
import type { Agent, RunState, RunToolApprovalItem } from '@openai/agents';
import { UserInteractionError } from '../interaction/user-interaction-error';
import {
  approvalRequestOf,
  approvalRequester,
  editedCallText,
  rejectionText,
  runStopped,
} from '../tool/require-approval';
import type { ApprovalDecision, AskUserAgent, JsonSchemaObject, UserInteraction } from '../types';

// The SDK's own bound on the agent of a run (`RunState<TContext, TAgent extends Agent<any, any>>`): any
// narrower one refuses agents the SDK accepts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyAgent = Agent<any, any>;

type RejectDecision = Extract<ApprovalDecision, { type: 'reject' }>;
type EditDecision = Extract<ApprovalDecision, { type: 'edit' }>;

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
 * tool's own parsing's, when the model calls again. The approval records `onEdit: 'suggest'`, so whoever decides
 * is told what the edit becomes (`ask-user approve --input` prints the denial). A tool whose edits must run as such is wrapped with
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
 *   when an interruption has no call id; `RUN_STOPPED` when a call was rejected with `stop` (the decisions are
 *   applied to the state, which is not to be resumed); whatever the provider rejects with (`ASK_ABORTED`, ...).
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
      return requestApproval(
        approvalRequestOf({
          toolName,
          toolCallId,
          input,
          description: options.description?.(interruption, input),
          inputSchema: (options.inputSchemaOf ?? functionToolSchema)(interruption),
          agent: options.agent,
          signal: options.signal,
          onEdit: 'suggest',
        }),
      );
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
  // A reject with `stop` ends the run: the state holds every decision (the stopped call rejected), and is not
  // handed back to resume.
  for (const [index, decision] of decisions.entries()) {
    const stopped = runStopped(decision, (rejected) =>
      (options.rejectedMessage ?? rejectionText)(rejected, calls[index]!.toolName),
    );
    if (stopped !== undefined) throw stopped;
  }
  return state;
}
