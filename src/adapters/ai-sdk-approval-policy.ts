/**
 * `aiToolApprovalPolicy`: durable approvals through `ai` 7's `toolApproval` option, the SDK asking the policy
 * about each call and acting on its answer within the same run. Only the SDK's types are imported; `ai` itself
 * is loaded only to read a tool's input schema.
 */
import { formatToolError, UserInteractionError } from '../interaction/user-interaction-error';
import { approvalRequester } from '../tool/require-approval';
import type { ApprovalDecision } from '../types';
import {
  deniedReason,
  flowApprovalRequest,
  runStop,
  type AiApprovalFlowOptions,
  type AiToolCall,
} from './ai-sdk-approval-flow';
import { toolJsonSchema } from './ai-sdk-schema';

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
export interface AiToolApprovalPolicyOptions extends AiApprovalFlowOptions {
  /**
   * Which calls wait for a decision. Default: every call. The SDK gives a `toolApproval` function precedence
   * over the tools' own `needsApproval`, so those are not consulted: pick the calls here instead.
   */
  needsApproval?: boolean | ((toolCall: AiToolCall) => boolean | PromiseLike<boolean>);
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
 * `inputSchema` when it is decided, and the approval records `onEdit: 'suggest'`, so whoever decides is told
 * what the edit becomes (`ask-user approve --input` prints the denial). A tool whose edits must run, or whose
 * responses must be its result, is
 * wrapped with {@link durableApprovalAiTool} instead (and left out of the policy with `needsApproval`).
 *
 * The SDK asks the policy about the calls of a step one after another, so the second call of a step is put to
 * a reviewer only once the first is decided. A failure to get a decision (unreachable, expired without a
 * policy) denies the call, and the model reads `Error: <message>`; an abort through `options.signal` throws,
 * and so does a reject with `stop` (`RUN_STOPPED`, its message the denial), which ends the run.
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
    const inputSchema = await toolJsonSchema(tools, toolCall.toolName, owner);
    let decision: ApprovalDecision;
    try {
      decision = await requestApproval(flowApprovalRequest(toolCall, inputSchema, options));
    } catch (error) {
      // Aborted, the run ends; otherwise never a silent approval: the model reads why the call did not run.
      if (options.signal?.aborted === true || !UserInteractionError.isInstance(error)) throw error;
      return { type: 'denied', reason: formatToolError(error) };
    }
    const stop = runStop(decision, toolCall.toolName, options);
    if (stop !== undefined) throw stop;
    const reason = deniedReason(decision, toolCall.toolName, options);
    return reason === undefined ? { type: 'approved' } : { type: 'denied', reason };
  };
}
