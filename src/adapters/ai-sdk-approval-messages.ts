/**
 * `resolveAiToolApprovals`: durable approvals over the AI SDK's own stop-and-resume flow (`ai` 6 and 7). A tool
 * with `needsApproval` stops the step with `tool-approval-request` parts; each becomes a durable approval, and the
 * decisions come back as the `tool-approval-response` message that the next `generateText` call resumes from.
 * Only the SDK's types are imported; `ai` itself is loaded only to read a tool's input schema.
 */
import type * as AiSdk from 'ai';
import { definedFields } from '../common';
import { UserInteractionError } from '../interaction/user-interaction-error';
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

/** Options of {@link resolveAiToolApprovals}. */
export interface ResolveAiToolApprovalsOptions extends AiApprovalFlowOptions {
  /**
   * The tools the calls were made with (the `tools` of `generateText`): an edit of a call is checked against
   * the JSON Schema of its tool's `inputSchema` when it is decided. Without them, edits are not checked.
   */
  tools?: AiSdk.ToolSet;
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
            ...definedFields({ providerExecuted: part.providerExecuted === true ? true : undefined }),
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
 * decided (with `options.tools`), so the model is never sent an input the tool refuses, and the approval records
 * `onEdit: 'suggest'`, so whoever decides is told what the edit becomes (`ask-user approve --input` prints the
 * denial). A tool whose edits
 * must run as such is wrapped with {@link durableApprovalAiTool} instead. A provider-executed call answered
 * with `respond` is denied with the text as the reason: the provider, not this process, would give its
 * result.
 *
 * If any approval fails (aborted, unreachable, expired without a policy), no message is returned and the
 * first failure is thrown; the decisions already taken are kept durably, and calling again gets them at once.
 * A reject with `stop` is thrown the same way (`RUN_STOPPED`, its message the denial): the caller's loop ends
 * there instead of calling the model again.
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
  const settled = await Promise.allSettled(
    pending.map(async ({ toolCall }) => {
      const inputSchema = await toolJsonSchema(options.tools, toolCall.toolName, owner);
      return await requestApproval(flowApprovalRequest(toolCall, inputSchema, options));
    }),
  );
  const failure = settled.find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  for (const [index, { toolCall }] of pending.entries()) {
    const decision = (settled[index] as PromiseFulfilledResult<ApprovalDecision>).value;
    const stop = runStop(decision, toolCall.toolName, options);
    if (stop !== undefined) throw stop;
  }
  const content = pending.flatMap((approval, index) =>
    approvalAnswer(approval, (settled[index] as PromiseFulfilledResult<ApprovalDecision>).value, options),
  );
  return [{ role: 'tool', content }];
}

/**
 * The parts that answer one approval: its response, and for a `respond` on a call this process runs, the
 * reviewer's text as the call's result (the SDK skips the approvals of calls answered so, rather than deny
 * them again). The SDK forwards the responses of provider-executed calls to the provider, and only those.
 */
function approvalAnswer(
  { approvalId, toolCall }: PendingApproval,
  decision: ApprovalDecision,
  options: ResolveAiToolApprovalsOptions,
): AiSdk.ToolContent {
  const { toolName, toolCallId } = toolCall;
  const reason = deniedReason(decision, toolName, options);
  const parts: AiSdk.ToolContent = [
    {
      type: 'tool-approval-response',
      approvalId,
      approved: reason === undefined,
      ...definedFields({ reason, providerExecuted: toolCall.providerExecuted === true ? true : undefined }),
    },
  ];
  if (decision.type === 'respond' && toolCall.providerExecuted !== true) {
    parts.push({ type: 'tool-result', toolCallId, toolName, output: { type: 'text', value: decision.text } });
  }
  return parts;
}
