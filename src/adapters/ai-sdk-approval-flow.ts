/**
 * What the AI SDK's two stop-and-ask approval flows share ({@link resolveAiToolApprovals} over the messages,
 * {@link aiToolApprovalPolicy} as `ai` 7's `toolApproval`): the tool call as the SDK hands it, the options,
 * the request, and the denial each decision other than `approve` becomes. Neither flow can run an edited
 * input (the SDK runs an approved call only with the model's own), so their requests say `onEdit: 'suggest'`
 * and whoever decides is told what an edit becomes.
 */
import { UserInteractionError } from '../interaction/user-interaction-error';
import { approvalRequestOf, editedCallText, rejectionText, runStopped } from '../tool/require-approval';
import type {
  ApprovalDecision,
  ApprovalRequest,
  AskUserAgent,
  JsonSchemaObject,
  UserInteraction,
} from '../types';

/** A tool call as the SDK hands it to an approval: its id, the tool's name and the parsed input. */
export interface AiToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** The provider runs the tool (a provider-defined tool), not this process. */
  providerExecuted?: boolean;
}

/** The options both stop-and-ask flows take. */
export interface AiApprovalFlowOptions {
  /** Where the approvals are asked: `TemporalUserInteraction` (durable), a `UserInteractionService`, ... */
  userInteraction: UserInteraction;
  /** Who asks: recorded with each approval, and part of its durable key with the tool call id. */
  agent?: AskUserAgent;
  /** What the reviewer reads about a call. Default: nothing beyond the tool's name and input. */
  description?: (toolCall: AiToolCall) => string | undefined;
  /**
   * The reason of the denial when the reviewer rejects the call, which the model reads. Default:
   * `The user rejected this call of <tool>`, with `: <reason>` when the reviewer gave one.
   */
  rejectedReason?: (decision: Extract<ApprovalDecision, { type: 'reject' }>, toolName: string) => string;
  /**
   * The reason of the denial when the reviewer edited the call, which cannot run with other input. Default:
   * that the call did not run, and the edited input to call it with.
   */
  editedReason?: (decision: Extract<ApprovalDecision, { type: 'edit' }>, toolName: string) => string;
  /** Withdraws the approvals still waiting (with `TemporalUserInteraction` their workflows end Canceled). */
  signal?: AbortSignal;
}

/** The approval request of one call of a stop-and-ask flow. */
export function flowApprovalRequest(
  toolCall: AiToolCall,
  inputSchema: JsonSchemaObject | undefined,
  options: AiApprovalFlowOptions,
): ApprovalRequest {
  return approvalRequestOf({
    toolName: toolCall.toolName,
    toolCallId: toolCall.toolCallId,
    input: toolCall.input,
    description: options.description?.(toolCall),
    inputSchema,
    agent: options.agent,
    signal: options.signal,
    onEdit: 'suggest',
  });
}

/** The reason a call is denied with, which the model reads; `undefined` for `approve`, which runs it. */
export function deniedReason(
  decision: ApprovalDecision,
  toolName: string,
  options: AiApprovalFlowOptions,
): string | undefined {
  switch (decision.type) {
    case 'approve':
      return undefined;
    case 'reject':
      return (options.rejectedReason ?? rejectionText)(decision, toolName);
    case 'edit':
      return (options.editedReason ?? editedCallText)(decision, toolName);
    case 'respond':
      return decision.text;
  }
}

/**
 * The failure that ends the run when `decision` is a reject with `stop` (`RUN_STOPPED`, its message the
 * denial), else `undefined`: the flows throw it, which ends `generateText` (the `toolApproval` policy) or the
 * caller's loop over the messages.
 */
export function runStop(
  decision: ApprovalDecision,
  toolName: string,
  options: AiApprovalFlowOptions,
): UserInteractionError | undefined {
  return runStopped(decision, (rejected) => (options.rejectedReason ?? rejectionText)(rejected, toolName));
}

/**
 * A `stopWhen` condition of `generateText`, `streamText` and `ToolLoopAgent`: true once a step holds a call
 * rejected with `stop` (a tool of {@link durableApprovalAiTool} fails `RUN_STOPPED`, which the SDK keeps as the
 * step's `tool-error`), so the loop asks the model no more. `stopWhen: [stepCountIs(5), approvalStopped]`.
 */
export function approvalStopped({ steps }: { steps: readonly { content: readonly unknown[] }[] }): boolean {
  const last = steps.at(-1);
  return (
    last?.content.some((part) => {
      const { type, error } = part as { type?: unknown; error?: unknown };
      return type === 'tool-error' && UserInteractionError.isInstance(error) && error.code === 'RUN_STOPPED';
    }) === true
  );
}
